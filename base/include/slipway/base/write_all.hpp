// write_all: writes a whole buffer to a file descriptor.
#pragma once

#include <string_view>

namespace slipway::base {

// Writes all of `data` to `fd`, retrying on EINTR and short writes; returns
// false on any other error.
bool write_all(int fd, std::string_view data);

}  // namespace slipway::base
