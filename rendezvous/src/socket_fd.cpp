// Blocking socket helpers of the client (see socket_fd.hpp).
#include "socket_fd.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "slipway/rendezvous/endpoint.hpp"
#include "slipway/rendezvous/error.hpp"

namespace slipway::rendezvous::detail {
namespace {

int millis_until(Deadline deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<long long>(left.count(), 1 << 30));
}

}  // namespace

base::UniqueFd connect_tcp(const std::string& host, std::uint16_t port, Deadline deadline) {
  const std::string where = format_endpoint(host, port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) {
    throw Error(Status::connection_lost,
                "cannot resolve the rendezvous host in " + where + ": " + ::gai_strerror(rc));
  }
  std::string last_error = "no address";
  for (addrinfo* ai = found; ai; ai = ai->ai_next) {
    base::UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
    if (!fd) {
      last_error = std::strerror(errno);
      continue;
    }
    int r = ::connect(fd.get(), ai->ai_addr, ai->ai_addrlen);
    if (r != 0 && errno == EINPROGRESS) {
      pollfd p{fd.get(), POLLOUT, 0};
      r = ::poll(&p, 1, millis_until(deadline));
      if (r == 0) {
        last_error = "timed out";
        continue;
      }
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        last_error = std::strerror(err);
        continue;
      }
      r = 0;
    }
    if (r != 0) {
      last_error = std::strerror(errno);
      continue;
    }
    const int flags = ::fcntl(fd.get(), F_GETFL);
    ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    const int one = 1;
    ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::setsockopt(fd.get(), SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    ::freeaddrinfo(found);
    return fd;
  }
  ::freeaddrinfo(found);
  throw Error(Status::connection_lost, "cannot connect to the rendezvous at " + where + ": " +
                                           last_error + " (is SLIPWAY_RDZV right, and the launcher running?)");
}

bool read_exact(int fd, std::span<std::uint8_t> out, Deadline deadline) {
  std::size_t done = 0;
  while (done < out.size()) {
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, millis_until(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      errno = ETIMEDOUT;
      return false;
    }
    const ssize_t n = ::recv(fd, out.data() + done, out.size() - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ECONNRESET;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace slipway::rendezvous::detail
