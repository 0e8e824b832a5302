// A short command run to its end with its output captured (run_captured.hpp).
#include "slipway/base/run_captured.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>
#include <system_error>

#include "slipway/base/unique_fd.hpp"
#include "slipway/base/write_all.hpp"

namespace slipway::base {
namespace {

using SteadyClock = std::chrono::steady_clock;

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

void set_nonblocking(int fd) {
  if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// Appends what `fd` has now to `text` (up to `max` bytes kept); false at
// its end or on an error.
bool drain(int fd, std::string& text, std::size_t max, bool& truncated) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      const std::size_t room = text.size() < max ? max - text.size() : 0;
      const std::size_t kept = std::min(room, static_cast<std::size_t>(n));
      text.append(buffer, kept);
      if (kept < static_cast<std::size_t>(n)) truncated = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && errno == EAGAIN;
  }
}

int poll_timeout(const std::optional<SteadyClock::time_point>& deadline) {
  if (!deadline) return -1;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - SteadyClock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
}

}  // namespace

CapturedRun run_captured(const CaptureOptions& options) {
  Pipe in = make_pipe();
  Pipe out = make_pipe();
  Pipe err = options.merge_stderr ? Pipe{} : make_pipe();
  SpawnOptions spawn_options;
  spawn_options.argv = options.argv;
  spawn_options.env = options.env;
  spawn_options.new_process_group = options.timeout.has_value();
  spawn_options.stdin_fd = in.read.get();
  spawn_options.stdout_fd = out.write.get();
  spawn_options.stderr_fd = options.merge_stderr ? out.write.get() : err.write.get();
  const pid_t pid = spawn(spawn_options);
  const auto deadline =
      options.timeout ? std::optional<SteadyClock::time_point>(SteadyClock::now() + *options.timeout) : std::nullopt;
  in.read.reset();
  out.write.reset();
  err.write.reset();
  for (int fd : {in.write.get(), out.read.get(), err.read.get()}) set_nonblocking(fd);

  CapturedRun run;
  std::string_view input = options.input;
  if (input.empty()) in.write.reset();
  bool out_open = true;
  bool err_open = err.read.valid();
  while (out_open || err_open) {
    pollfd fds[3] = {{out_open ? out.read.get() : -1, POLLIN, 0},
                     {err_open ? err.read.get() : -1, POLLIN, 0},
                     {in.write.get(), POLLOUT, 0}};
    const int ready = ::poll(fds, 3, poll_timeout(deadline));
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0) {  // the timeout
      ::kill(-pid, SIGKILL);
      run.timed_out = true;
      break;
    }
    if (fds[0].revents) out_open = drain(out.read.get(), run.out, options.max_bytes, run.truncated);
    if (fds[1].revents) err_open = drain(err.read.get(), run.err, options.max_bytes, run.truncated);
    if (fds[2].revents) {
      const ssize_t n =
          (fds[2].revents & POLLOUT) ? write_without_sigpipe(in.write.get(), input.data(), input.size()) : -1;
      if (n > 0) input.remove_prefix(static_cast<std::size_t>(n));
      if ((n < 0 && errno != EINTR && errno != EAGAIN) || input.empty()) in.write.reset();
    }
  }
  in.write.reset();
  run.exit = wait_for(pid);
  return run;
}

std::string first_line(const std::string& text, std::size_t max_chars) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.size() > max_chars ? line.substr(0, max_chars) + "..." : line;
}

}  // namespace slipway::base
