// A task's output: pipes relayed line by line and a bounded log (see
// task_output.hpp).
#include "slipway/tasks/task_output.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

namespace slipway::tasks {

TaskOutput::TaskOutput(const std::string& name, const std::string& log_dir, core::TaskLaunch launch,
                       const std::string& host, std::uint64_t log_limit) {
  if (!log_dir.empty()) {
    std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char when[64];
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &local);
    log_ = std::make_unique<TaskLog>(
        name, log_dir + "/" + name + ".log",
        "=== slipway: " + name + " attempt " + std::to_string(launch.attempt) +
            (launch.epoch > 0 ? " epoch " + std::to_string(launch.epoch) : std::string()) + " on " +
            host + " at " +
            when + " ===\n",
        log_limit);
  }
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("cannot create output pipes: ") + std::strerror(errno));
  }
  out_.reset(out_pipe[0]);
  out_write_.reset(out_pipe[1]);
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("cannot create output pipes: ") + std::strerror(errno));
  }
  err_.reset(err_pipe[0]);
  err_write_.reset(err_pipe[1]);
  for (int fd : {out_.get(), err_.get()}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  out_lines_ = std::make_unique<LinePrefixer>(name + ": ", base::terminal_stdout());
  err_lines_ = std::make_unique<LinePrefixer>(name + ": ", base::terminal_stderr());
}

void TaskOutput::keep_log() {
  if (log_) log_->keep();
}

void TaskOutput::close_write_ends() {
  out_write_.reset();
  err_write_.reset();
}

std::vector<int> TaskOutput::open_fds() const {
  std::vector<int> fds;
  if (out_) fds.push_back(out_.get());
  if (err_) fds.push_back(err_.get());
  return fds;
}

bool TaskOutput::pump(int fd) {
  base::UniqueFd& end = fd == out_.get() ? out_ : err_;
  LinePrefixer& lines = fd == out_.get() ? *out_lines_ : *err_lines_;
  if (!end || end.get() != fd) return false;
  char buffer[16384];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n > 0) {
    std::string_view bytes(buffer, static_cast<std::size_t>(n));
    if (log_) log_->append(bytes);
    lines.feed(bytes);
    return true;
  }
  if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    if (lines.finish() && log_) log_->append("\n");
    end.reset();
  }
  return false;
}

void TaskOutput::relay_available() {
  for (int fd : open_fds()) {
    while (pump(fd)) {
    }
  }
}

void TaskOutput::drain() {
  while (!finished()) {
    auto fds = open_fds();
    pollfd polled[2];
    for (std::size_t i = 0; i < fds.size(); ++i) polled[i] = {fds[i], POLLIN, 0};
    if (::poll(polled, fds.size(), -1) < 0 && errno != EINTR) return;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (polled[i].revents) pump(fds[i]);
    }
  }
}

}  // namespace slipway::tasks
