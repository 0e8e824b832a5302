// The owner thread of one UCX worker: it alone calls into the worker. It
// progresses the worker, runs tasks posted from other threads and timers, and
// waits idle through ucp_worker_arm + epoll on the worker's event fd and an
// eventfd for posted tasks (no spinning). Only when asked (busy_poll > 0)
// does it keep polling for that long after its last activity before it
// arms and sleeps: lower latency for a core spent.
//
// Contract: post() may be called from any thread (also the owner); tasks run
// in post order on the owner thread. schedule()/cancel() are for the owner
// thread only. stop() runs `on_stop` on the owner thread, then progresses
// until the worker's endpoint closes finish (at most `drain` long) and joins;
// tasks posted after stop() began are dropped (post returns false).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "slipway/channels/ucx/worker.hpp"

namespace slipway::channels::detail {

class ProgressLoop {
 public:
  using Task = std::function<void()>;
  using Clock = std::chrono::steady_clock;
  struct TimerKey {
    Clock::time_point when;
    std::uint64_t seq = 0;
    auto operator<=>(const TimerKey&) const = default;
  };

  explicit ProgressLoop(std::shared_ptr<ucx::Worker> worker);
  ~ProgressLoop();
  ProgressLoop(const ProgressLoop&) = delete;
  ProgressLoop& operator=(const ProgressLoop&) = delete;

  // `after_progress` runs on the owner thread after every worker progress
  // (it handles what UCX callbacks queued); `pending` says whether it has
  // more to do (then the loop does not sleep).
  // `transferring` says whether operations of the owner are in flight: then
  // the loop sleeps at most 100 us at a time (UCX's shared-memory transports
  // do not wake a sender whose queue to the peer was full).
  void start(std::string thread_name, Task after_progress, std::function<bool()> pending,
             std::function<bool()> transferring, std::chrono::microseconds busy_poll);
  void stop(Task on_stop, std::chrono::milliseconds drain);

  bool post(Task task);
  bool on_owner_thread() const noexcept;
  bool running() const noexcept { return running_.load(); }

  TimerKey schedule(Clock::time_point when, Task task);
  void cancel(const TimerKey& key);

 private:
  void run();
  bool run_posted();
  void run_due_timers();
  void wait_idle();
  void wake();

  std::shared_ptr<ucx::Worker> worker_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::thread thread_;
  std::atomic<std::thread::id> owner_{};
  std::atomic<bool> running_{false};
  std::atomic<bool> sleeping_{false};

  std::mutex mutex_;            // guards posted_, accepting_, stop_task_
  std::vector<Task> posted_;
  bool accepting_ = false;
  bool stop_requested_ = false;
  Task stop_task_;
  std::chrono::milliseconds drain_{0};

  Task after_progress_;
  std::function<bool()> pending_;
  std::function<bool()> transferring_;
  std::map<TimerKey, Task> timers_;
  std::uint64_t timer_seq_ = 0;
  std::chrono::microseconds busy_poll_{0};
};

}  // namespace slipway::channels::detail
