// Private: the blocking socket helpers the client uses (connect with a
// deadline, read exactly with a deadline); descriptors are base::UniqueFd,
// whole writes base::send_all.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "slipway/base/unique_fd.hpp"

namespace slipway::rendezvous::detail {

using Deadline = std::chrono::steady_clock::time_point;

// Connects to host:port (any address family the name resolves to) by the
// deadline; TCP_NODELAY set. Throws Error(connection_lost/timeout) naming
// the endpoint.
base::UniqueFd connect_tcp(const std::string& host, std::uint16_t port, Deadline deadline);

// Reads exactly out.size() bytes by the deadline. Returns false on EOF,
// error or deadline (errno = ETIMEDOUT for the latter).
bool read_exact(int fd, std::span<std::uint8_t> out, Deadline deadline);

}  // namespace slipway::rendezvous::detail
