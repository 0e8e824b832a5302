// Private: a RAII file descriptor and the blocking socket helpers the client
// uses (connect with a deadline, write all, read exactly with a deadline).
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace slipway::rendezvous::detail {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void reset();

 private:
  int fd_ = -1;
};

using Deadline = std::chrono::steady_clock::time_point;

// Connects to host:port (any address family the name resolves to) by the
// deadline; TCP_NODELAY set. Throws Error(connection_lost/timeout) naming
// the endpoint.
Fd connect_tcp(const std::string& host, std::uint16_t port, Deadline deadline);

// Writes everything or returns false (errno set). No SIGPIPE.
bool write_all(int fd, std::string_view data);

// Reads exactly out.size() bytes by the deadline. Returns false on EOF,
// error or deadline (errno = ETIMEDOUT for the latter).
bool read_exact(int fd, std::span<std::uint8_t> out, Deadline deadline);

}  // namespace slipway::rendezvous::detail
