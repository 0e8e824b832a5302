// The progress of one UCX worker (and of a transport beside it, the
// courier's TCP): its progress thread, posted tasks, timers, idle waits
// through ucp_worker_arm + epoll (on the worker's event fd, the other
// transport's and an eventfd for posted tasks), and caller-side progress.
//
// Ownership rule: the worker, the timers and everything the callbacks
// touch (the endpoint core's state) belong to whichever thread holds the
// drive lock, its *owner* (on_owner_thread()). The progress thread holds it
// except while it sleeps in epoll. A thread blocked in a call may take it
// while the progress thread sleeps (try_acquire(), never waiting for it),
// progress the worker itself for a bounded time (poll_once()) and hand it
// back armed (release()), so the reply needs no thread hand-offs. At any
// moment at most one thread calls into the worker (created
// UCS_THREAD_MODE_SERIALIZED); every UCX callback runs on the owner.
//
// Polling: after activity the progress thread keeps polling for a short
// window before it arms and sleeps. busy_poll > 0 fixes that window; else
// it is learnt from the gaps between bursts of activity (PollWindow, at
// most `poll_limit`; 0 = never poll). Idle, it always sleeps in epoll,
// armed; while a caller that polled for its reply drives the worker, it
// naps unarmed instead (release(nap)).
//
// Contract: post() may be called from any thread (also the owner); tasks run
// in post order on the owner. schedule()/cancel() are for the owner only.
// stop() runs `on_stop` on the progress thread, then progresses until the
// worker's endpoint closes finish (at most `drain` long) and joins; tasks
// posted after stop() began are dropped (post returns false).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "slipway/base/unique_fd.hpp"
#include "slipway/channels/ucx/worker.hpp"
#include "spare_nodes.hpp"

namespace slipway::channels::detail {

// How long to poll before sleeping, learnt from how long the awaited thing
// took: the gap until the next burst of activity (progress thread), or a
// reply's round trip (a caller). The window is twice the recent peak of
// those times that were within `limit` (slowly forgotten), at most `limit`.
// Polling stops while most recent polled waits ended asleep anyway (the
// thing came after the window: sparse traffic) or were preempted (a polling
// round took over kPreemptedRound: the host has more runnable threads than
// cores, where polling only takes the CPU from the peer being waited for,
// and sleepers are scheduled sooner than pollers); then every
// probe_every-th wait polls for the whole limit, so that polling comes back
// once it pays off again (without it a sleeping peer is slow, which keeps
// this side sleeping, which keeps the peer slow), each failed probe
// doubling the interval up to kProbeEveryMax. Threads may share one
// (relaxed atomics: a lost update only costs that update).
class PollWindow {
 public:
  using Duration = std::chrono::nanoseconds;
  static constexpr std::uint32_t kProbeEvery = 8;
  static constexpr std::uint32_t kProbeEveryMax = 1024;
  // The awaited thing came `took` after a wait began that polled for
  // `polled` (what next() said) before it slept; `preempted`: a polling
  // round of it took longer than kPreemptedRound.
  void observe(Duration took, Duration polled, Duration limit, bool preempted) noexcept;
  // How long to poll in the next wait (0: sleep at once).
  Duration next(Duration limit) noexcept;
  // The learnt window, and whether polling is off for now.
  Duration window(Duration limit) const noexcept;
  bool off() const noexcept;

 private:
  std::atomic<std::int64_t> peak_ns_{0};
  std::atomic<std::uint32_t> misses_{0};  // moving share of polled waits that slept, of 1024
  std::atomic<std::uint32_t> waits_{0};
  std::atomic<std::uint32_t> probe_every_{kProbeEvery};
};

// How long the progress thread sleeps when it cannot arm the worker because
// sends of its own wait for room in a peer's shared-memory queue: UCX 1.13's
// posix/sysv transports refuse to arm while such sends are pending and wake
// no one when the peer frees room, so without this the thread spun at full
// speed, taking the core from the very peer that must drain the queue (on
// 2 cores, 8 replay actors spinning so starved the shard: 5k samples/s
// instead of 100k). Each consecutive refusal sleeps twice as long, from
// kFirst to kMax; anything happening starts again at kFirst.
class FullQueueBackoff {
 public:
  static constexpr std::chrono::nanoseconds kFirst{std::chrono::microseconds(10)};
  static constexpr std::chrono::nanoseconds kMax{std::chrono::microseconds(100)};
  std::chrono::nanoseconds next() noexcept {
    last_ = last_.count() == 0 ? kFirst : std::min(kMax, 2 * last_);
    return last_;
  }
  void reset() noexcept { last_ = std::chrono::nanoseconds(0); }

 private:
  std::chrono::nanoseconds last_{0};
};

// The time as polling rounds see it, read from the clock only when it may
// have moved by more than about a microsecond: steady_clock::now() costs
// 25-80 ns on a virtual host (the largest item of an idle polling round in
// `perf`, read two or three times per round), a tick of the cycle counter
// (x86's TSC) a third of that. now() reads the clock once kTicks cycles
// have passed since the last read, and at least every kRounds calls (the
// bound where there is no cycle counter, or it stood still); a cycle
// counter that went backwards reads it at once. So a time it returns is
// never older than kTicks cycles (under a microsecond at 2 GHz) or kRounds
// polling rounds, and deadlines judged by it fire that much late at most.
class RoundClock {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::uint64_t kTicks = 2048;
  static constexpr std::uint32_t kRounds = 32;
  explicit RoundClock(Clock::time_point now) noexcept : now_(now), tick_(ticks()) {}
  Clock::time_point now() noexcept {
    const std::uint64_t tick = ticks();
    if (tick - tick_ >= kTicks || ++rounds_ >= kRounds) return fresh(tick);
    return now_;
  }
  // The clock read now.
  Clock::time_point fresh() noexcept { return fresh(ticks()); }
  // The cycle counter (0 where there is none: then every kRounds-th call
  // reads the clock).
  static std::uint64_t ticks() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return 0;
#endif
  }

 private:
  Clock::time_point fresh(std::uint64_t tick) noexcept {
    now_ = Clock::now();
    tick_ = tick;
    rounds_ = 0;
    return now_;
  }
  Clock::time_point now_;
  std::uint64_t tick_;
  std::uint32_t rounds_ = 0;
};

// A polling round that found nothing to do and took longer than this was
// preempted.
inline constexpr std::chrono::microseconds kPreemptedRound{25};

// Between two polling rounds, `polled` into a wait: after a little polling
// it yields the CPU, so that on a host with fewer free cores than polling
// threads the peer being waited for gets to run.
void pause_polling(std::chrono::nanoseconds polled) noexcept;

class ProgressLoop {
 public:
  using Task = std::function<void()>;
  using Clock = std::chrono::steady_clock;
  struct TimerKey {
    Clock::time_point when;
    std::uint64_t seq = 0;
    auto operator<=>(const TimerKey&) const = default;
  };
  struct Settings {
    std::string thread_name;
    // Runs on the owner after every worker progress (it handles what UCX
    // callbacks queued); `pending` says whether it has more to do (then
    // the loop does not sleep).
    Task after_progress;
    std::function<bool()> pending;
    // Whether operations of the owner are in flight: then the loop sleeps
    // at most 100 us at a time (UCX's shared-memory transports do not wake
    // a sender whose queue to the peer was full).
    std::function<bool()> transferring;
    std::chrono::microseconds busy_poll{0};
    std::chrono::microseconds poll_limit{0};
    // Another transport beside the worker (the courier's TCP): a
    // descriptor readable while it has something to do, and its progress
    // (owner only; whether anything happened). -1 / empty: none.
    int io_fd = -1;
    std::function<bool()> poll_io;
  };

  explicit ProgressLoop(std::shared_ptr<ucx::Worker> worker);
  ~ProgressLoop();
  ProgressLoop(const ProgressLoop&) = delete;
  ProgressLoop& operator=(const ProgressLoop&) = delete;

  void start(Settings settings);
  void stop(Task on_stop, std::chrono::milliseconds drain);

  bool post(Task task);
  bool on_owner_thread() const noexcept;
  bool running() const noexcept { return running_.load(); }

  TimerKey schedule(Clock::time_point when, Task task);
  void cancel(const TimerKey& key);

  // Caller-side progress (see the ownership rule above). try_acquire()
  // takes the worker if no thread holds it, or if the progress thread
  // only polls (it then hands the worker over within kHandOverWait), and
  // the loop is not stopping; then the caller is its owner until release()
  // (tasks posted before have run). poll_once() (owner only)
  // progresses the worker and runs what is due; returns whether anything
  // happened. release() hands the worker back to the progress thread,
  // armed, waking it when it has something to do. stop_requested() tells
  // a driving caller to hand back at once.
  bool try_acquire();
  bool poll_once() { return poll_once(Clock::now()); }
  // The same, running the timers due by `now` (a polling round's time,
  // RoundClock: at most about a microsecond old).
  bool poll_once(Clock::time_point now);
  // The time of the last poll_once (owner only): for what needs the time
  // of an event to a millisecond, without a clock read of its own.
  Clock::time_point round_time() const noexcept { return round_time_; }
  // `nap` > 0: the caller expects to call again within `nap` (it polled
  // for its reply): the worker is handed back unarmed, so that a reply
  // arriving while no one sleeps on it costs the peer no wake-up signal,
  // and the progress thread naps (wakes every `nap`, polls, does not arm)
  // until callers have been quiet for `nap`; then it arms and sleeps.
  // `now`, when given, is the time as the caller read it last (no clock
  // read of its own for the nap).
  void release(std::chrono::nanoseconds nap = std::chrono::nanoseconds(0),
               Clock::time_point now = {}) noexcept;
  bool stop_requested();
  // One progress of the worker and the other transport (owner only);
  // whether anything happened.
  bool progress_transports();

 private:
  // The end of release(): clears the owner and driving_, then wakes the
  // progress thread if asked to or if a task was posted meanwhile.
  void hand_back(bool wake_loop) noexcept;
  void run();
  bool run_posted();
  void run_due_timers(Clock::time_point now);
  void wait_idle(std::unique_lock<std::mutex>& drive);
  // One epoll wait of the sleeping progress thread (a wake-up read off).
  void sleep_once(const timespec& timeout) noexcept;
  void wake();
  void watch_worker(bool on) noexcept;  // and the other transport's fd
  std::chrono::nanoseconds nap_left(Clock::time_point now) const noexcept;
  bool take_from_poller();

  std::shared_ptr<ucx::Worker> worker_;
  base::UniqueFd epoll_fd_;
  base::UniqueFd wake_fd_;
  std::thread thread_;
  std::atomic<std::thread::id> owner_{};
  std::atomic<bool> running_{false};
  std::atomic<bool> sleeping_{false};
  std::atomic<bool> driving_{false};     // a caller holds the worker
  std::atomic<bool> polling_{false};     // the progress thread polls after activity
  std::atomic<int> drive_wanted_{0};     // callers waiting for it to stop polling
  std::atomic<bool> has_posted_{false};  // posted_ is not empty
  std::atomic<bool> stop_flag_{false};   // stop_requested_, readable without mutex_
  // The last unarmed hand-back: when, and the nap it asked for (ns).
  std::atomic<std::int64_t> napping_since_ns_{0};
  std::atomic<std::int64_t> nap_ns_{0};
  bool watching_ = true;  // the worker's event fd is in epoll (owner state)

  // Held by the owner of the worker (the progress thread, or a caller).
  std::mutex drive_mutex_;
  // When the sleeping progress thread wakes by itself: set by it before
  // each sleep, read by a caller handing back (to wake it sooner).
  std::atomic<Clock::time_point> sleep_until_{};
  // The progress thread's last nap, and the hand-back it followed (its own
  // state): naps that callers keep renewing grow to kMaxNap.
  std::chrono::nanoseconds nap_slept_{0};
  std::int64_t nap_slept_since_ns_ = 0;

  std::mutex mutex_;            // guards posted_, accepting_, stop_*
  std::vector<Task> posted_;
  bool accepting_ = false;
  bool stop_requested_ = false;
  Task stop_task_;
  std::chrono::milliseconds drain_{0};

  Settings settings_;
  std::map<TimerKey, Task> timers_;
  // Nodes of fired or cancelled timers, reused by schedule() (a call
  // schedules and cancels one each: no allocation per call).
  SpareNodes<std::map<TimerKey, Task>> spare_timers_;
  std::uint64_t timer_seq_ = 0;
  Clock::time_point round_time_{};
  PollWindow window_;  // after activity (when busy_poll is 0)
  FullQueueBackoff full_queue_;  // progress thread only
};

}  // namespace slipway::channels::detail
