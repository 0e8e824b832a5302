// The progress of a UCX worker: its progress thread (progress, posted tasks,
// timers, polling after activity, idle waits through ucp_worker_arm and
// epoll) and the hand-off that lets a waiting caller drive the worker.
#include "progress_loop.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "slipway/channels/error.hpp"

namespace slipway::channels::detail {
namespace {

using namespace std::chrono_literals;

// How long the loop sleeps at a time while transfers of ours are in flight.
constexpr std::chrono::microseconds kTransferWait{100};
// Below this a learnt poll window is not worth a round.
constexpr std::chrono::nanoseconds kMinWindow = 2us;
// Polling longer than this yields the CPU between rounds.
constexpr std::chrono::nanoseconds kYieldAfter = 10us;
// How long a caller waits for a polling progress thread to hand over.
constexpr std::chrono::nanoseconds kHandOverWait = 50us;
// The longest the progress thread naps while callers drive the worker.
constexpr std::chrono::nanoseconds kMaxNap = 1ms;

ChannelError os_error(const char* what) {
  return ChannelError(Errc::transport, std::string(what) + ": " + std::strerror(errno));
}

}  // namespace

void pause_polling(std::chrono::nanoseconds polled) noexcept {
  if (polled > kYieldAfter) ::sched_yield();
}

PollWindow::Duration PollWindow::window(Duration limit) const noexcept {
  Duration peak(peak_ns_.load(std::memory_order_relaxed));
  return std::min(limit, 2 * peak + kMinWindow);
}

bool PollWindow::off() const noexcept {
  return misses_.load(std::memory_order_relaxed) >= 512;
}

void PollWindow::observe(Duration took, Duration polled, Duration limit,
                         bool preempted) noexcept {
  if (limit.count() <= 0) return;
  if (took <= limit) {
    auto peak = peak_ns_.load(std::memory_order_relaxed);
    peak_ns_.store(std::max<std::int64_t>(took.count(), peak - peak / 64),
                   std::memory_order_relaxed);
  }
  if (polled.count() <= 0) return;
  const bool was_off = off();
  const bool hit = took <= polled && !preempted;
  auto misses = misses_.load(std::memory_order_relaxed);
  misses = misses - misses / 8 + (hit ? 0 : 1024 / 8);
  if (hit && was_off) misses = 256;  // a probe paid off: poll again
  misses_.store(misses, std::memory_order_relaxed);
  if (hit) {
    probe_every_.store(kProbeEvery, std::memory_order_relaxed);
  } else if (was_off) {
    auto every = probe_every_.load(std::memory_order_relaxed);
    probe_every_.store(std::min(kProbeEveryMax, every * 2), std::memory_order_relaxed);
  }
}

PollWindow::Duration PollWindow::next(Duration limit) noexcept {
  if (limit.count() <= 0) return Duration(0);
  if (peak_ns_.load(std::memory_order_relaxed) == 0) return limit;  // nothing learnt yet
  if (!off()) return window(limit);
  auto every = probe_every_.load(std::memory_order_relaxed);
  return waits_.fetch_add(1, std::memory_order_relaxed) % every == 0 ? limit : Duration(0);
}

ProgressLoop::ProgressLoop(std::shared_ptr<ucx::Worker> worker) : worker_(std::move(worker)) {
  epoll_fd_.reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_fd_) throw os_error("epoll_create1");
  wake_fd_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake_fd_) throw os_error("eventfd");
  for (int fd : {worker_->event_fd(), wake_fd_.get()}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) throw os_error("epoll_ctl");
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
}

void ProgressLoop::start(Settings settings) {
  settings_ = std::move(settings);
  if (settings_.io_fd >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = settings_.io_fd;
    if (::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, settings_.io_fd, &ev) != 0) throw os_error("epoll_ctl");
  }
  {
    std::lock_guard lock(mutex_);
    accepting_ = true;
  }
  running_ = true;
  thread_ = std::thread([this] {
    ::pthread_setname_np(::pthread_self(), settings_.thread_name.substr(0, 15).c_str());
    run();
  });
}

void ProgressLoop::stop(Task on_stop, std::chrono::milliseconds drain) {
  {
    std::lock_guard lock(mutex_);
    if (!accepting_) return;
    accepting_ = false;
    stop_requested_ = true;
    stop_flag_ = true;
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
    has_posted_ = true;
  }
  // A driving caller runs it, or wakes the loop when it hands back.
  if (sleeping_.load() && !driving_.load()) wake();
  return true;
}

bool ProgressLoop::on_owner_thread() const noexcept {
  return owner_.load() == std::this_thread::get_id();
}

bool ProgressLoop::stop_requested() { return stop_flag_.load(); }

ProgressLoop::TimerKey ProgressLoop::schedule(Clock::time_point when, Task task) {
  TimerKey key{when, ++timer_seq_};
  auto node = spare_timers_.take();
  if (node.empty()) {
    timers_.emplace(key, std::move(task));
    return key;
  }
  node.key() = key;
  node.mapped() = std::move(task);
  timers_.insert(std::move(node));
  return key;
}

void ProgressLoop::cancel(const TimerKey& key) {
  auto node = timers_.extract(key);
  if (node.empty()) return;
  node.mapped() = nullptr;
  spare_timers_.keep(std::move(node));
}

void ProgressLoop::wake() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd_.get(), &one, sizeof one);
}

void ProgressLoop::watch_worker(bool on) noexcept {
  if (watching_ == on) return;
  watching_ = on;
  for (int fd : {worker_->event_fd(), settings_.io_fd}) {
    if (fd < 0) continue;
    epoll_event ev{};
    ev.events = on ? std::uint32_t{EPOLLIN} : std::uint32_t{0};
    ev.data.fd = fd;
    [[maybe_unused]] int rc = ::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_MOD, fd, &ev);
  }
}

bool ProgressLoop::progress_transports() {
  bool active = worker_->progress() != 0;
  if (settings_.poll_io && settings_.poll_io()) active = true;
  return active;
}

bool ProgressLoop::run_posted() {
  if (!has_posted_.load(std::memory_order_acquire)) return false;
  std::vector<Task> tasks;
  {
    std::lock_guard lock(mutex_);
    tasks.swap(posted_);
    has_posted_ = false;
  }
  for (auto& task : tasks) task();
  return !tasks.empty();
}

void ProgressLoop::run_due_timers(Clock::time_point now) {
  while (!timers_.empty() && timers_.begin()->first.when <= now) {
    auto node = timers_.extract(timers_.begin());
    Task task = std::move(node.mapped());
    node.mapped() = nullptr;
    spare_timers_.keep(std::move(node));
    task();
  }
}

bool ProgressLoop::poll_once(Clock::time_point now) {
  round_time_ = now;
  // Timers first: a call that is due has timed out, whatever arrives now.
  run_due_timers(now);
  bool active = false;
  while (progress_transports()) {
    active = true;
    settings_.after_progress();
  }
  settings_.after_progress();
  return run_posted() || active;
}

bool ProgressLoop::take_from_poller() {
  // The progress thread gives the worker up at its next polling round.
  ++drive_wanted_;
  const auto deadline = Clock::now() + kHandOverWait;
  bool taken = false;
  while (!(taken = drive_mutex_.try_lock()) && Clock::now() < deadline) {
    std::this_thread::yield();
  }
  --drive_wanted_;
  return taken;
}

bool ProgressLoop::try_acquire() {
  if (stop_flag_.load() || !running_.load()) return false;
  if (!drive_mutex_.try_lock() &&
      !((polling_.load() || nap_left(Clock::now()).count() > 0) && take_from_poller())) {
    return false;
  }
  if (stop_flag_.load() || !running_.load()) {
    drive_mutex_.unlock();
    return false;
  }
  owner_ = std::this_thread::get_id();
  driving_ = true;
  // The sleeping progress thread need not wake for what this caller handles.
  watch_worker(false);
  // What was posted before (e.g. by this thread) runs before what the
  // caller does next.
  try {
    run_posted();
  } catch (...) {
    release();
    throw;
  }
  return true;
}

std::chrono::nanoseconds ProgressLoop::nap_left(Clock::time_point now) const noexcept {
  const std::chrono::nanoseconds since(now.time_since_epoch().count() -
                                       napping_since_ns_.load(std::memory_order_relaxed));
  return std::chrono::nanoseconds(nap_ns_.load(std::memory_order_relaxed)) - since;
}

void ProgressLoop::release(std::chrono::nanoseconds nap, Clock::time_point now) noexcept {
  bool wake_loop = false;
  if (nap.count() > 0 && !stop_flag_.load() && !settings_.pending() && !has_posted_.load() &&
      !settings_.transferring()) {
    // Unarmed: the progress thread naps at most `nap` (it may sleep
    // longer now: wake it then) and arms once callers go quiet.
    if (now == Clock::time_point{}) now = Clock::now();
    napping_since_ns_.store(now.time_since_epoch().count(), std::memory_order_relaxed);
    nap_ns_.store(nap.count(), std::memory_order_relaxed);
    const auto sleep_until = sleep_until_.load();
    if (sleep_until > now + std::max<std::chrono::nanoseconds>(nap, kMaxNap)) wake_loop = true;
    if (!timers_.empty() && timers_.begin()->first.when < sleep_until) wake_loop = true;
    hand_back(wake_loop);
    return;
  }
  nap_ns_.store(0, std::memory_order_relaxed);
  // Hand the worker back armed, so that the progress thread's epoll sees
  // what arrives from now on; wake it if it has something to do sooner.
  try {
    for (int round = 0;; ++round) {
      if (!settings_.pending() && worker_->arm()) break;
      if (round == 8) {
        wake_loop = true;
        break;
      }
      poll_once();
    }
    now = Clock::now();
    if (settings_.pending() || stop_flag_.load() ||
        (!timers_.empty() && timers_.begin()->first.when < sleep_until_.load()) ||
        (settings_.transferring() && sleep_until_.load() > now + kTransferWait)) {
      wake_loop = true;
    }
  } catch (...) {
    wake_loop = true;  // the progress thread sorts it out
  }
  watch_worker(true);
  hand_back(wake_loop);
}

void ProgressLoop::hand_back(bool wake_loop) noexcept {
  owner_ = std::thread::id{};
  driving_ = false;
  // Tasks posted while this caller drove: post() saw driving_ and did not
  // wake the loop, so look again now that driving_ is clear.
  if (has_posted_.load()) wake_loop = true;
  drive_mutex_.unlock();
  if (wake_loop) wake();
}

void ProgressLoop::sleep_once(const timespec& timeout) noexcept {
  epoll_event events[3];
  const int n = ::epoll_pwait2(epoll_fd_.get(), events, 3, &timeout, nullptr);
  for (int i = 0; i < n; ++i) {
    if (events[i].data.fd == wake_fd_.get()) {
      std::uint64_t count = 0;
      [[maybe_unused]] auto r = ::read(wake_fd_.get(), &count, sizeof count);
    }
  }
}

void ProgressLoop::wait_idle(std::unique_lock<std::mutex>& drive) {
  sleeping_ = true;
  bool idle = false;
  {
    std::lock_guard lock(mutex_);
    idle = posted_.empty() && !stop_requested_;
  }
  auto now = Clock::now();
  const auto nap = nap_left(now);
  bool armed = false;
  bool queue_full = false;
  if (idle && !settings_.pending() &&
      (nap.count() > 0 || (armed = worker_->arm()) ||
       (queue_full = settings_.transferring()))) {
    // Until the nearest timer (at most a minute), or kTransferWait while
    // our transfers are in flight; napping (unarmed: the worker's fd would
    // not wake it), at most the nap (kMaxNap once callers keep renewing it);
    // unarmable while our sends wait for room in a peer's queue, a short
    // growing sleep (FullQueueBackoff: nothing wakes a sender when room
    // frees, and spinning takes the core from the peer that must drain it).
    watch_worker(armed);
    auto wait = std::chrono::nanoseconds(std::chrono::minutes(1));
    if (queue_full && nap.count() <= 0) {
      wait = full_queue_.next();
    } else if (!armed) {
      // A nap that callers renewed since the last one (they keep calling)
      // lasts twice as long, up to kMaxNap: every wake-up of this thread
      // takes a core from a polling thread for tens of microseconds on a
      // small or virtual host.
      const std::int64_t since = napping_since_ns_.load(std::memory_order_relaxed);
      const bool renewed = nap_slept_.count() > 0 && since != nap_slept_since_ns_;
      nap_slept_ = renewed ? std::min<std::chrono::nanoseconds>(kMaxNap, std::max(nap, 2 * nap_slept_)) : nap;
      nap_slept_since_ns_ = since;
      wait = nap_slept_;
    } else {
      nap_slept_ = std::chrono::nanoseconds(0);
    }
    if (!timers_.empty()) {
      wait = std::min(wait, std::max(std::chrono::nanoseconds(0),
                                     std::chrono::nanoseconds(timers_.begin()->first.when - now)));
    }
    if (settings_.transferring()) wait = std::min<std::chrono::nanoseconds>(wait, kTransferWait);
    sleep_until_ = now + wait;
    timespec timeout{static_cast<time_t>(wait.count() / 1000000000),
                     static_cast<long>(wait.count() % 1000000000)};
    // A caller may take the worker while this thread sleeps.
    const auto self = owner_.load();
    owner_ = std::thread::id{};
    drive.unlock();
    sleep_once(timeout);
    // While a caller drives the worker, sleep again (each time twice as
    // long, kTransferWait to kMaxNap) rather than wait on the mutex: every
    // call's hand-back would wake the waiter (a futex wake-up per call,
    // each scheduling this thread onto a core where a caller or the peer it
    // waits for polls; measured on 2 cores: 2 us round trips became 65 us
    // for whole runs). A caller hands back waking this thread when it has
    // something sooner (release: a due timer, an armed worker's fd).
    while (!drive.try_lock()) {
      if (!driving_.load()) {
        drive.lock();  // a hand-over under way: a moment
        break;
      }
      nap_slept_ = std::clamp<std::chrono::nanoseconds>(2 * nap_slept_, kTransferWait, kMaxNap);
      sleep_until_ = Clock::now() + nap_slept_;
      sleep_once(timespec{0, static_cast<long>(nap_slept_.count())});
    }
    owner_ = self;
  }
  sleeping_ = false;
}

void ProgressLoop::run() {
  std::unique_lock drive(drive_mutex_);
  owner_ = std::this_thread::get_id();
  const std::chrono::nanoseconds limit = settings_.poll_limit;
  auto last_activity = Clock::now();
  auto round_start = last_activity;
  // The rounds' time: read once per microsecond or so (RoundClock: an
  // active round that took longer reads it), at once after sleeping. A
  // "round" that took longer than kPreemptedRound is then the span of
  // rounds since the last read.
  RoundClock clock(last_activity);
  auto now = last_activity;
  bool in_burst = true;
  bool preempted = false;  // in this idle period's polling
  std::chrono::nanoseconds window{0};
  for (;;) {
    bool active = poll_once(now);
    if (stop_flag_.load()) break;
    now = clock.now();
    const bool long_round = now - round_start > kPreemptedRound;
    round_start = now;
    if (active) {
      full_queue_.reset();
      if (!in_burst) window_.observe(now - last_activity, window, limit, preempted);
      polling_ = false;
      in_burst = true;
      last_activity = now;
      continue;
    }
    if (in_burst) {
      // The burst is over: how long to poll before sleeping.
      in_burst = false;
      preempted = false;
      window = settings_.busy_poll.count() > 0 ? std::chrono::nanoseconds(settings_.busy_poll)
                                               : window_.next(limit);
    } else if (polling_ && long_round) {
      preempted = true;
    }
    // Poll on a little, unless callers drive the worker (they asked for a
    // nap): a third polling thread on a small host takes a core from them
    // or from the peer they wait for.
    if (now - last_activity < window && drive_wanted_.load() == 0 && nap_left(now).count() <= 0) {
      polling_ = true;
      pause_polling(now - last_activity);
      continue;
    }
    polling_ = false;
    wait_idle(drive);
    round_start = now = clock.fresh();
  }
  run_posted();  // what was posted before stop() began still runs
  if (stop_task_) stop_task_();
  settings_.after_progress();
  auto deadline = Clock::now() + drain_;
  while (settings_.pending() || (worker_->closing() > 0 && Clock::now() < deadline)) {
    progress_transports();
    settings_.after_progress();
    if (Clock::now() >= deadline) break;
  }
  timers_.clear();
  running_ = false;
}

}  // namespace slipway::channels::detail
