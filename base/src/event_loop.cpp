// EventLoop: signalfd, eventfd and poll() around the sources of one
// process's events (see event_loop.hpp).
#include "slipway/base/event_loop.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <system_error>

namespace slipway::base {
namespace {

sigset_t set_of(const std::vector<int>& signals) {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : signals) sigaddset(&set, sig);
  return set;
}

// Every signal the signalfd holds now, in the order they came.
std::vector<int> read_signals(int fd) {
  std::vector<int> signals;
  signalfd_siginfo info{};
  while (::read(fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    signals.push_back(static_cast<int>(info.ssi_signo));
  }
  return signals;
}

}  // namespace

void block_signals(const std::vector<int>& signals) {
  const sigset_t set = set_of(signals);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

EventLoop::EventLoop(const std::vector<int>& signals, Reaping reaping) : reaping_(reaping) {
  const sigset_t set = set_of(signals);
  signals_.reset(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!signals_) throw std::system_error(errno, std::generic_category(), "signalfd");
  wakeup_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wakeup_) throw std::system_error(errno, std::generic_category(), "eventfd");
}

void EventLoop::post(std::function<void()> work) {
  {
    std::lock_guard lock(posted_mutex_);
    posted_.push_back(std::move(work));
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] ssize_t written = ::write(wakeup_.get(), &one, sizeof one);
}

void EventLoop::run_posted() {
  std::uint64_t count = 0;
  [[maybe_unused]] ssize_t read = ::read(wakeup_.get(), &count, sizeof count);
  while (true) {
    std::deque<std::function<void()>> batch;
    {
      std::lock_guard lock(posted_mutex_);
      batch.swap(posted_);
    }
    if (batch.empty()) return;
    for (auto& work : batch) work();
  }
}

void EventLoop::reap() {
  int status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
    if (on_child_exit_) on_child_exit_(pid, ExitStatus::from_wait_status(status));
  }
}

void EventLoop::handle_signals() {
  for (int sig : read_signals(signals_.get())) {
    if (sig == SIGCHLD && reaping_ == Reaping::on_sigchld) {
      run_posted();
      reap();
    } else if (on_signal_) {
      on_signal_(sig);
    }
  }
}

bool EventLoop::turn(std::optional<Clock::time_point> deadline) {
  for (const PollSource* source : sources_) {
    if (auto own = source->deadline(); own && (!deadline || *own < *deadline)) deadline = own;
  }
  if (reaping_ == Reaping::each_turn) {
    const auto next_reap = Clock::now() + kReapInterval;
    if (!deadline || next_reap < *deadline) deadline = next_reap;
  }
  fds_.assign({{signals_.get(), POLLIN, 0}, {wakeup_.get(), POLLIN, 0}});
  source_begin_.clear();
  for (PollSource* source : sources_) {
    source_begin_.push_back(fds_.size());
    source->watch(fds_);
  }
  const std::size_t watched_end = fds_.size();
  terminal_writes_.watch(fds_);
  if (::poll(fds_.data(), fds_.size(), poll_timeout_ms(deadline)) < 0 && errno != EINTR) return false;
  terminal_writes_.watched(fds_.data() + watched_end, fds_.size() - watched_end);
  if (fds_[1].revents & POLLIN) run_posted();
  for (std::size_t k = 0; k < source_begin_.size(); ++k) {
    const std::size_t end = k + 1 < source_begin_.size() ? source_begin_[k + 1] : watched_end;
    sources_[k]->watched(fds_.data() + source_begin_[k], end - source_begin_[k]);
  }
  if (fds_[0].revents & POLLIN) handle_signals();
  if (reaping_ == Reaping::each_turn) reap();
  return true;
}

void EventLoop::flush_output(Clock::time_point deadline, const std::function<bool(int sig)>& stops) {
  flush_terminal_streams(deadline, signals_.get(), [this, &stops] {
    const std::vector<int> signals = read_signals(signals_.get());
    return std::any_of(signals.begin(), signals.end(), stops);
  });
}

}  // namespace slipway::base
