// Running a helper program and reading its output (see header).
#include "command_output.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "slipway/base/process.hpp"
#include "slipway/base/unique_fd.hpp"

extern char** environ;

namespace slipway::cli {

CommandOutput run_for_output(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                             const std::string& input, const std::vector<std::string>& extra_env,
                             std::size_t max_bytes) {
  CommandOutput result;
  int out[2], in[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(in, O_CLOEXEC) != 0) {
    result.output = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  base::UniqueFd out_read(out[0]), out_write(out[1]), in_read(in[0]), in_write(in[1]);
  base::SpawnOptions spawn;
  spawn.argv = argv;
  for (char** e = environ; *e; ++e) spawn.env.emplace_back(*e);
  spawn.env.insert(spawn.env.end(), extra_env.begin(), extra_env.end());
  spawn.stdin_fd = in_read.get();
  spawn.stdout_fd = out_write.get();
  spawn.stderr_fd = out_write.get();
  spawn.new_process_group = true;
  pid_t pid = -1;
  try {
    pid = base::spawn(spawn);
  } catch (const std::exception& e) {
    result.output = e.what();
    return result;
  }
  result.started = true;
  in_read.reset();
  out_write.reset();
  // Small inputs (commands for scontrol) fit in the pipe: write, then close.
  if (!input.empty()) {
    [[maybe_unused]] ssize_t n = ::write(in_write.get(), input.data(), input.size());
  }
  in_write.reset();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ::kill(-pid, SIGKILL);
      result.timed_out = true;
      break;
    }
    pollfd p{out_read.get(), POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t n = ::read(out_read.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    const std::size_t room = max_bytes - std::min(max_bytes, result.output.size());
    result.output.append(buffer, std::min(room, static_cast<std::size_t>(n)));
  }
  const base::ExitStatus status = base::wait_for(pid);
  result.exit_code = status.shell_code();
  return result;
}

std::string first_line(const std::string& text, std::size_t max_chars) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.size() > max_chars ? line.substr(0, max_chars) + "..." : line;
}

}  // namespace slipway::cli
