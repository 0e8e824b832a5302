// The progress thread of a UCX worker: progress, posted tasks, timers, and
// idle waits through ucp_worker_arm and epoll.
#include "progress_loop.hpp"

#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "slipway/channels/error.hpp"

namespace slipway::channels::detail {
namespace {

// How long the loop sleeps at a time while transfers of ours are in flight.
constexpr std::chrono::microseconds kTransferWait{100};

ChannelError os_error(const char* what) {
  return ChannelError(Errc::transport, std::string(what) + ": " + std::strerror(errno));
}

}  // namespace

ProgressLoop::ProgressLoop(std::shared_ptr<ucx::Worker> worker) : worker_(std::move(worker)) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) throw os_error("epoll_create1");
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    ::close(epoll_fd_);
    throw os_error("eventfd");
  }
  for (int fd : {worker_->event_fd(), wake_fd_}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
      auto err = os_error("epoll_ctl");
      ::close(wake_fd_);
      ::close(epoll_fd_);
      throw err;
    }
  }
}

ProgressLoop::~ProgressLoop() {
  if (thread_.joinable()) {
    if (on_owner_thread()) {
      thread_.detach();  // cannot join itself; the thread ends after this task
    } else {
      stop([] {}, std::chrono::milliseconds(0));
    }
  }
  ::close(wake_fd_);
  ::close(epoll_fd_);
}

void ProgressLoop::start(std::string thread_name, Task after_progress,
                         std::function<bool()> pending, std::function<bool()> transferring,
                         std::chrono::microseconds busy_poll) {
  busy_poll_ = busy_poll;
  transferring_ = std::move(transferring);
  after_progress_ = std::move(after_progress);
  pending_ = std::move(pending);
  {
    std::lock_guard lock(mutex_);
    accepting_ = true;
  }
  running_ = true;
  thread_ = std::thread([this, name = std::move(thread_name)] {
    owner_ = std::this_thread::get_id();
    ::pthread_setname_np(::pthread_self(), name.substr(0, 15).c_str());
    run();
  });
}

void ProgressLoop::stop(Task on_stop, std::chrono::milliseconds drain) {
  {
    std::lock_guard lock(mutex_);
    if (!accepting_) return;
    accepting_ = false;
    stop_requested_ = true;
    stop_task_ = std::move(on_stop);
    drain_ = drain;
  }
  wake();
  if (!on_owner_thread() && thread_.joinable()) thread_.join();
}

bool ProgressLoop::post(Task task) {
  {
    std::lock_guard lock(mutex_);
    if (!accepting_) return false;
    posted_.push_back(std::move(task));
  }
  if (sleeping_.load()) wake();
  return true;
}

bool ProgressLoop::on_owner_thread() const noexcept {
  return owner_.load() == std::this_thread::get_id();
}

ProgressLoop::TimerKey ProgressLoop::schedule(Clock::time_point when, Task task) {
  TimerKey key{when, ++timer_seq_};
  timers_.emplace(key, std::move(task));
  return key;
}

void ProgressLoop::cancel(const TimerKey& key) { timers_.erase(key); }

void ProgressLoop::wake() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof one);
}

bool ProgressLoop::run_posted() {
  std::vector<Task> tasks;
  {
    std::lock_guard lock(mutex_);
    tasks.swap(posted_);
  }
  for (auto& task : tasks) task();
  return !tasks.empty();
}

void ProgressLoop::run_due_timers() {
  auto now = Clock::now();
  while (!timers_.empty() && timers_.begin()->first.when <= now) {
    Task task = std::move(timers_.begin()->second);
    timers_.erase(timers_.begin());
    task();
  }
}

void ProgressLoop::wait_idle() {
  sleeping_ = true;
  bool idle = false;
  {
    std::lock_guard lock(mutex_);
    idle = posted_.empty() && !stop_requested_;
  }
  if (idle && !pending_() && worker_->arm()) {
    // Until the nearest timer (at most a minute), or kTransferWait while
    // our transfers are in flight.
    auto wait = std::chrono::nanoseconds(std::chrono::minutes(1));
    if (!timers_.empty()) {
      wait = std::min(wait, std::max(std::chrono::nanoseconds(0),
                                     std::chrono::nanoseconds(timers_.begin()->first.when -
                                                              Clock::now())));
    }
    if (transferring_()) wait = std::min<std::chrono::nanoseconds>(wait, kTransferWait);
    timespec timeout{static_cast<time_t>(wait.count() / 1000000000),
                     static_cast<long>(wait.count() % 1000000000)};
    epoll_event events[2];
    int n = ::epoll_pwait2(epoll_fd_, events, 2, &timeout, nullptr);
    for (int i = 0; i < n; ++i) {
      if (events[i].data.fd == wake_fd_) {
        std::uint64_t count = 0;
        [[maybe_unused]] auto r = ::read(wake_fd_, &count, sizeof count);
      }
    }
  }
  sleeping_ = false;
}

void ProgressLoop::run() {
  auto last_activity = Clock::now();
  for (;;) {
    bool active = false;
    while (worker_->progress()) {
      active = true;
      after_progress_();
    }
    after_progress_();
    active = run_posted() || active;
    run_due_timers();
    bool stopping = false;
    {
      std::lock_guard lock(mutex_);
      stopping = stop_requested_;
    }
    if (stopping) break;
    if (busy_poll_.count() > 0) {
      auto now = Clock::now();
      if (active) last_activity = now;
      if (now - last_activity < busy_poll_) continue;  // opt-in: poll on while busy
    }
    wait_idle();
  }
  run_posted();  // what was posted before stop() began still runs
  if (stop_task_) stop_task_();
  after_progress_();
  auto deadline = Clock::now() + drain_;
  while (pending_() || (worker_->closing() > 0 && Clock::now() < deadline)) {
    worker_->progress();
    after_progress_();
    if (Clock::now() >= deadline) break;
  }
  timers_.clear();
  running_ = false;
}

}  // namespace slipway::channels::detail

