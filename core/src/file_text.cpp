// read_text_file (file_text.hpp).
#include "file_text.hpp"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace slipway::core {

std::optional<std::string> read_text_file(const std::string& path, std::size_t max_bytes,
                                          std::string& error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = "is a directory";
    return std::nullopt;
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::error_code(errno != 0 ? errno : ENOENT, std::generic_category()).message();
    return std::nullopt;
  }
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) {
      error = "larger than " + std::to_string(max_bytes >> 20) + " MiB";
      return std::nullopt;
    }
  }
  if (in.bad()) {
    error = "read error";
    return std::nullopt;
  }
  return text;
}

}  // namespace slipway::core
