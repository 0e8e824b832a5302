// The rendezvous's logger and log hygiene (log.hpp).
#include "log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <mutex>

namespace slipway::rendezvous {

std::shared_ptr<spdlog::logger> rdzv_log() {
  if (auto existing = spdlog::get("rendezvous")) return existing;
  static std::mutex creating;
  std::lock_guard lock(creating);
  if (auto existing = spdlog::get("rendezvous")) return existing;
  auto made = spdlog::stderr_color_mt("rendezvous");
  made->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %v");
  return made;
}

std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte == '\\') {
      out += "\\\\";
    } else if (byte == '\n') {
      out += "\\n";
    } else if (byte == '\r') {
      out += "\\r";
    } else if (byte == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte >= 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace slipway::rendezvous
