// Lease tokens: 128 bits from the kernel's random source, compared in
// constant time (types.hpp).
#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "slipway/replay/types.hpp"

namespace slipway::replay {

LeaseToken random_token() {
  LeaseToken token;
  std::size_t done = 0;
  while (done < token.size()) {
    const ssize_t n = ::getrandom(token.data() + done, token.size() - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("no random bytes for a lease token: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return token;
}

bool same_token(const LeaseToken& a, const LeaseToken& b) noexcept {
  unsigned difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) difference |= std::to_integer<unsigned>(a[i] ^ b[i]);
  return difference == 0;
}

}  // namespace slipway::replay
