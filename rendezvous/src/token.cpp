// Secret generation from the kernel CSPRNG, and hex helpers.
#include "slipway/rendezvous/token.hpp"

#include <sys/random.h>

#include <cerrno>
#include <system_error>

namespace slipway::rendezvous {

void random_bytes(std::span<std::uint8_t> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::getrandom(out.data() + done, out.size() - done, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "getrandom");
    }
    done += static_cast<std::size_t>(n);
  }
}

std::string generate_token() {
  std::uint8_t bytes[32];
  random_bytes(bytes);
  std::string token = to_hex(bytes);
  for (auto& b : bytes) *static_cast<volatile std::uint8_t*>(&b) = 0;
  return token;
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

std::string redact(std::string_view secret) {
  return "<redacted, " + std::to_string(secret.size()) + " chars>";
}

}  // namespace slipway::rendezvous
