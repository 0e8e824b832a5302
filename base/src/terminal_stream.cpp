// TerminalStream: stdout/stderr written without ever blocking the event
// loop (see terminal_stream.hpp).
#include "slipway/base/terminal_stream.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "slipway/base/write_all.hpp"

namespace slipway::base {

void TerminalStream::never_block(std::size_t bound) {
  bound_ = bound;
  if (mode_ != Mode::blocking) return;
  struct stat st{};
  if (::fstat(fd_, &st) != 0 || S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) {
    mode_ = Mode::direct;  // a file never waits for a reader (a closed fd: writes fail)
    return;
  }
  if (S_ISSOCK(st.st_mode)) {
    mode_ = Mode::socket;
    return;
  }
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
    // A description of our own: O_NONBLOCK there leaves the shell's alone.
    std::string self = "/proc/self/fd/" + std::to_string(fd_);
    own_.reset(::open(self.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (own_) {
      mode_ = Mode::own_description;
      return;
    }
    if (errno == ENXIO) {  // a FIFO with no reader left
      mode_ = Mode::direct;
      gone_ = true;
      return;
    }
  }
  // Cannot reopen it (e.g. a terminal of another user): set O_NONBLOCK
  // around each write only.
  mode_ = Mode::toggle;
}

std::size_t TerminalStream::try_write(std::string_view bytes) {
  if (gone_) return bytes.size();
  ssize_t n;
  int error = 0;
  do {
    switch (mode_) {
      case Mode::own_description:
        n = ::write(own_.get(), bytes.data(), bytes.size());
        break;
      case Mode::socket:
        n = ::send(fd_, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
        break;
      case Mode::toggle: {
        int flags = ::fcntl(fd_, F_GETFL);
        if (flags >= 0 && !(flags & O_NONBLOCK)) ::fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
        n = ::write(fd_, bytes.data(), bytes.size());
        int saved = errno;
        if (flags >= 0 && !(flags & O_NONBLOCK)) ::fcntl(fd_, F_SETFL, flags);
        errno = saved;
        break;
      }
      default:
        n = ::write(fd_, bytes.data(), bytes.size());
        break;
    }
    error = n < 0 ? errno : 0;
  } while (n < 0 && error == EINTR);
  if (n >= 0) return static_cast<std::size_t>(n);
  if (error == EAGAIN || error == EWOULDBLOCK) return 0;
  if (error == EPIPE || error == EBADF || error == ECONNRESET || error == ENXIO) {
    gone_ = true;  // the reader went away: nothing more will be read
    pending_.clear();
    sent_ = 0;
    dropped_lines_ = 0;
  }
  return bytes.size();  // dropped (e.g. a full disk behind a redirect)
}

void TerminalStream::append_marker() {
  pending_ += "slipway: [" + std::to_string(dropped_lines_) +
              " lines of output dropped here: the reader of this output did not keep up; the "
              "task logs have every line]\n";
  dropped_lines_ = 0;
}

void TerminalStream::write(std::string_view bytes) {
  if (mode_ == Mode::blocking) {
    write_all(fd_, bytes);
    return;
  }
  if (gone_ || bytes.empty()) return;
  if (pending_size() == 0 && dropped_lines_ == 0) {
    std::size_t taken = try_write(bytes);
    if (taken > 0 && taken < bytes.size()) {
      // The rest of a chunk begun on the terminal: kept whatever the bound,
      // so that no line is cut (one chunk is at most a read's worth).
      pending_.assign(bytes.substr(taken));
      sent_ = 0;
      return;
    }
    bytes.remove_prefix(taken);
    if (bytes.empty()) return;
  }
  std::size_t lines = static_cast<std::size_t>(std::count(bytes.begin(), bytes.end(), '\n'));
  constexpr std::size_t kMarkerRoom = 200;
  std::size_t room_needed = bytes.size() + (dropped_lines_ > 0 ? kMarkerRoom : 0);
  if (pending_size() + room_needed > bound_) {
    dropped_lines_ += std::max<std::size_t>(lines, 1);
    dropped_total_ += std::max<std::size_t>(lines, 1);
    return;
  }
  if (sent_ > 0 && sent_ >= pending_.size() / 2) {
    pending_.erase(0, sent_);
    sent_ = 0;
  }
  if (dropped_lines_ > 0) append_marker();
  pending_.append(bytes);
}

void TerminalStream::on_writable() {
  while (!gone_) {
    if (pending_size() == 0) {
      pending_.clear();
      sent_ = 0;
      if (dropped_lines_ == 0) return;
      append_marker();
    }
    std::size_t n = try_write(std::string_view(pending_).substr(sent_));
    if (n == 0) return;
    sent_ += n;
  }
}

TerminalStream& terminal_stdout() {
  static TerminalStream stream(STDOUT_FILENO);
  return stream;
}

TerminalStream& terminal_stderr() {
  static TerminalStream stream(STDERR_FILENO);
  return stream;
}

void flush_terminal_streams(std::chrono::steady_clock::time_point deadline, int stop_fd,
                            const std::function<bool()>& stop) {
  TerminalStream* streams[] = {&terminal_stdout(), &terminal_stderr()};
  while (true) {
    pollfd fds[3];
    nfds_t count = 0;
    for (TerminalStream* s : streams) {
      s->on_writable();
      if (s->wants_write()) fds[count++] = {s->pollable(), POLLOUT, 0};
    }
    if (count == 0) return;
    const nfds_t waiting = count;
    if (stop_fd >= 0) fds[count++] = {stop_fd, POLLIN, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return;
    int ready = ::poll(fds, count, static_cast<int>(std::min<long long>(left, 60000)));
    if (ready < 0 && errno != EINTR) return;
    // A reader that went away shows as POLLERR: on_writable() finds out.
    if (stop_fd >= 0 && (fds[waiting].revents & POLLIN) && (!stop || stop())) return;
  }
}

void TerminalWrites::watch(std::vector<pollfd>& fds) {
  writing_.clear();
  for (TerminalStream* stream : {&terminal_stdout(), &terminal_stderr()}) {
    if (!stream->wants_write()) continue;
    fds.push_back({stream->pollable(), POLLOUT, 0});
    writing_.push_back(stream);
  }
}

void TerminalWrites::watched(const pollfd* fds, std::size_t count) {
  for (std::size_t i = 0; i < count && i < writing_.size(); ++i) {
    if (fds[i].revents) writing_[i]->on_writable();
  }
}

int poll_timeout_ms(std::optional<PollSource::Clock::time_point> deadline) {
  if (!deadline) return -1;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - PollSource::Clock::now());
  return static_cast<int>(std::clamp<long long>(left.count(), 0, 60000));
}

}  // namespace slipway::base
