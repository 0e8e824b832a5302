// Whole buffers to files, sockets and pipes (write_all.hpp).
#include "slipway/base/write_all.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace slipway::base {
namespace {

template <class WriteSome>
bool write_whole(std::string_view data, WriteSome&& write_some) {
  while (!data.empty()) {
    const ssize_t n = write_some(data);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

bool write_all(int fd, std::string_view data) {
  return write_whole(data, [fd](std::string_view d) { return ::write(fd, d.data(), d.size()); });
}

bool send_all(int socket, std::string_view data) {
  return write_whole(data, [socket](std::string_view d) { return ::send(socket, d.data(), d.size(), MSG_NOSIGNAL); });
}

bool write_all_to_pipe(int fd, std::string_view data) {
  return write_whole(data, [fd](std::string_view d) { return write_without_sigpipe(fd, d.data(), d.size()); });
}

ssize_t write_without_sigpipe(int fd, const void* data, std::size_t size) {
  sigset_t pipe_signal, saved, pending;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &saved);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  const ssize_t n = ::write(fd, data, size);
  const int error = errno;
  if (n < 0 && error == EPIPE && !was_pending) {
    const timespec now{};
    while (sigtimedwait(&pipe_signal, nullptr, &now) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  errno = error;
  return n;
}

}  // namespace slipway::base
