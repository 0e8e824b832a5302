// write_all: a whole buffer to a descriptor (write_all.hpp).
#include "slipway/base/write_all.hpp"

#include <unistd.h>

#include <cerrno>

namespace slipway::base {

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace slipway::base
