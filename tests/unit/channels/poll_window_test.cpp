// PollWindow: how long a progress thread or a waiting caller polls before it
// sleeps, learnt from how long the awaited thing took (no UCX involved).
#include <catch2/catch.hpp>

#include <thread>

#include "progress_loop.hpp"

using slipway::channels::detail::PollWindow;
using slipway::channels::detail::RoundClock;
using namespace std::chrono_literals;

namespace {

constexpr std::chrono::nanoseconds kLimit = 100us;

// Observes `times` waits that polled for what next() said.
void learn(PollWindow& window, std::chrono::nanoseconds took, int times) {
  for (int i = 0; i < times; ++i) window.observe(took, window.next(kLimit), kLimit, false);
}

}  // namespace

TEST_CASE("the first wait of a poll window polls for the whole limit", "[channels][poll]") {
  PollWindow window;
  CHECK(window.next(kLimit) == kLimit);
  CHECK(window.next(0us) == 0us);  // poll_limit 0: never poll
}

TEST_CASE("a poll window covers twice the recent peak, at most the limit", "[channels][poll]") {
  PollWindow window;
  learn(window, 10us, 4);
  CHECK(window.next(kLimit) == 22us);
  learn(window, 30us, 1);
  CHECK(window.next(kLimit) == 62us);
  // Shorter times forget the peak slowly.
  learn(window, 10us, 8);
  CHECK(window.next(kLimit) > 40us);
  CHECK(window.next(kLimit) < 62us);
  learn(window, 80us, 1);
  CHECK(window.next(kLimit) == kLimit);
}

TEST_CASE("a poll window stops while most polled waits end asleep, and probes back",
          "[channels][poll]") {
  PollWindow window;
  learn(window, 20us, 4);
  REQUIRE_FALSE(window.off());
  // An occasional slow one does not stop polling.
  learn(window, 1ms, 1);
  CHECK_FALSE(window.off());
  // Mostly slow ones do: then only every kProbeEvery-th wait polls.
  learn(window, 1ms, 10);
  REQUIRE(window.off());
  int polled = 0;
  for (unsigned i = 0; i < 8 * PollWindow::kProbeEvery; ++i) {
    auto p = window.next(kLimit);
    if (p > 0us) ++polled;
    window.observe(1ms, p, kLimit, false);  // every probe fails
  }
  // Failed probes double the interval: fewer than one in kProbeEvery polled.
  CHECK(polled >= 1);
  CHECK(polled < 8);
  // Once a probe is answered while polling, polling comes back.
  std::chrono::nanoseconds p{0};
  for (int i = 0; i < 10000 && p == 0us; ++i) {
    p = window.next(kLimit);
    if (p == 0us) window.observe(1ms, p, kLimit, false);
  }
  REQUIRE(p == kLimit);
  window.observe(15us, p, kLimit, false);
  CHECK_FALSE(window.off());
  CHECK(window.next(kLimit) > 0us);
}

TEST_CASE("a poll window stops while polling is preempted", "[channels][poll]") {
  PollWindow window;
  learn(window, 20us, 4);
  REQUIRE_FALSE(window.off());
  // Replies within the window, but the polling rounds were preempted: the
  // host has no core to spare for polling.
  for (int i = 0; i < 10; ++i) window.observe(20us, window.next(kLimit), kLimit, true);
  CHECK(window.off());
}

TEST_CASE("a sender whose shared-memory queue is full sleeps a little longer each time, not spins",
          "[channels][progress]") {
  using slipway::channels::detail::FullQueueBackoff;
  FullQueueBackoff backoff;
  CHECK(backoff.next() == FullQueueBackoff::kFirst);
  CHECK(backoff.next() == 2 * FullQueueBackoff::kFirst);
  CHECK(backoff.next() == 4 * FullQueueBackoff::kFirst);
  std::chrono::nanoseconds last{0};
  for (int i = 0; i < 20; ++i) last = backoff.next();
  CHECK(last == FullQueueBackoff::kMax);
  backoff.reset();  // something happened: short sleeps again
  CHECK(backoff.next() == FullQueueBackoff::kFirst);
  CHECK(FullQueueBackoff::kFirst > 0ns);
}

TEST_CASE("a round clock's time is never older than its bound of rounds", "[channels][poll]") {
  // Polling rounds judge deadlines by it: a time that stood still would
  // let a call's timeout pass unnoticed while its caller polls.
  RoundClock clock(RoundClock::Clock::now());
  const auto before = clock.now();
  std::this_thread::sleep_for(3ms);
  auto after = clock.now();
  for (std::uint32_t round = 1; round < RoundClock::kRounds && after - before < 3ms; ++round) {
    after = clock.now();
  }
  CHECK(after - before >= 3ms);
}

#if defined(__x86_64__) || defined(__i386__)
TEST_CASE("a round clock reads the clock again once the cycle counter moved", "[channels][poll]") {
  RoundClock clock(RoundClock::Clock::now());
  const auto before = clock.now();
  std::this_thread::sleep_for(2ms);
  CHECK(clock.now() - before >= 2ms);
}
#endif

TEST_CASE("a round clock's fresh time is the clock's", "[channels][poll]") {
  RoundClock clock(RoundClock::Clock::now() - 1s);
  const auto fresh = clock.fresh();
  CHECK(RoundClock::Clock::now() - fresh < 1s);
  CHECK(clock.now() >= fresh);
}
