// A child process owned by an object (child.hpp).
#include "slipway/base/child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>

#include "slipway/base/write_all.hpp"

namespace slipway::base {
namespace {

std::pair<UniqueFd, UniqueFd> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

}  // namespace

Child::Child(ChildOptions options) : options_(std::move(options)) {
  auto [in_read, in_write] = make_pipe();
  UniqueFd out_read, out_write;
  if (options_.output == ChildOptions::Output::pipe) {
    std::tie(out_read, out_write) = make_pipe();
  } else if (options_.output == ChildOptions::Output::discard) {
    out_write.reset(::open("/dev/null", O_WRONLY | O_CLOEXEC));
    if (!out_write) throw std::system_error(errno, std::generic_category(), "/dev/null");
  }
  SpawnOptions spawn_options;
  spawn_options.argv = options_.argv;
  spawn_options.env = options_.env;
  spawn_options.new_process_group = false;
  spawn_options.stdin_fd = in_read.get();
  spawn_options.stdout_fd = out_write.get();
  pid_ = spawn(spawn_options);
  stdin_ = std::move(in_write);
  stdout_ = std::move(out_read);
}

Child::Child(Child&& other) noexcept
    : options_(std::move(other.options_)),
      pid_(std::exchange(other.pid_, -1)),
      ended_(std::exchange(other.ended_, std::nullopt)),
      stdin_(std::move(other.stdin_)),
      stdout_(std::move(other.stdout_)),
      buffer_(std::move(other.buffer_)) {}

Child& Child::operator=(Child&& other) noexcept {
  if (this != &other) {
    stop();
    options_ = std::move(other.options_);
    pid_ = std::exchange(other.pid_, -1);
    ended_ = std::exchange(other.ended_, std::nullopt);
    stdin_ = std::move(other.stdin_);
    stdout_ = std::move(other.stdout_);
    buffer_ = std::move(other.buffer_);
  }
  return *this;
}

Child::~Child() { stop(); }

bool Child::send_line(std::string_view text) {
  if (!stdin_) return false;
  std::string line(text);
  line += '\n';
  return write_all_to_pipe(stdin_.get(), line);
}

std::optional<std::string> Child::read_line(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (const auto end = buffer_.find('\n'); end != std::string::npos) {
      std::string line = buffer_.substr(0, end);
      buffer_.erase(0, end + 1);
      return line;
    }
    if (!stdout_) return std::nullopt;
    // Rounded up: never back before the deadline.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{stdout_.get(), POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(stdout_.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      stdout_.reset();
      return std::nullopt;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

void Child::signal(int signal) const noexcept {
  if (pid_ > 0 && !ended_) ::kill(pid_, signal);
}

std::optional<ExitStatus> Child::poll_exit() {
  if (pid_ > 0 && !ended_) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) ended_ = ExitStatus::from_wait_status(status);
  }
  return ended_;
}

ExitStatus Child::wait() {
  if (pid_ > 0 && !ended_) ended_ = wait_for(pid_);
  return ended_.value_or(ExitStatus{});
}

ExitStatus Child::stop() {
  if (pid_ <= 0) return {};
  stdin_.reset();
  if (!poll_exit()) {
    if (options_.terminate_on_stop) ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + options_.stop_grace;
    while (!poll_exit() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!ended_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  stdout_.reset();
  return *ended_;
}

}  // namespace slipway::base
