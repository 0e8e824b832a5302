// UnitTracker: a carrier (a process, or an in-launcher task) carries units;
// a unit ends when its tasks have all left, when one vanishes, or when its
// carrier ends first.
#include <catch2/catch.hpp>

#include "slipway/launch/unit_tracker.hpp"

using slipway::launch::UnitHandle;
using slipway::launch::UnitTracker;

namespace {
UnitHandle P(pid_t pid) { return UnitHandle::of_process(pid); }
}  // namespace

TEST_CASE("a step of several units ends each unit as its agent leaves") {
  UnitTracker tracker({1, 1, 1});
  tracker.started(P(100), {0, 1, 2}, 0);
  CHECK(tracker.carrier_of(1) == P(100));
  CHECK(tracker.task_left(1, 0, 3) == 3);
  CHECK(!tracker.carrier_of(1));
  CHECK_FALSE(tracker.task_left(1, 0, 0));  // already ended
  CHECK(tracker.task_left(0, 0, 0) == 0);
  CHECK_FALSE(tracker.drained(P(100)));
  // The process ends before unit 2 reported: only unit 2 ends with it.
  CHECK(tracker.carrier_ended(P(100)) == std::vector<std::size_t>{2});
  CHECK_FALSE(tracker.any_carrier());
  CHECK(tracker.carrier_ended(P(100)).empty());  // unknown now
}

TEST_CASE("a carrier whose units all ended is drained until it exits") {
  UnitTracker tracker({1, 1});
  tracker.started(P(7), {0, 1}, 0);
  CHECK(tracker.task_vanished(0, 0));
  CHECK_FALSE(tracker.task_vanished(0, 0));
  CHECK_FALSE(tracker.drained(P(7)));
  CHECK(tracker.task_left(1, 0, 0) == 0);
  CHECK(tracker.drained(P(7)));
  CHECK(tracker.any_carrier());
  CHECK(tracker.carriers() == std::vector<std::pair<UnitHandle, std::size_t>>{{P(7), 0}});
  CHECK(tracker.carrier_ended(P(7)).empty());
  CHECK_FALSE(tracker.any_carrier());
}

TEST_CASE("a colocated unit ends when its last task leaves, with the first failure") {
  UnitTracker tracker({3});
  tracker.started(P(5), {0}, 2);
  CHECK_FALSE(tracker.task_left(0, 2, 0));
  CHECK_FALSE(tracker.task_left(0, 2, 137));
  CHECK(tracker.task_left(0, 2, 1) == 137);
}

TEST_CASE("reports of another attempt are ignored") {
  UnitTracker tracker({1});
  tracker.started(P(5), {0}, 0);
  CHECK(tracker.task_left(0, 0, 1) == 1);
  tracker.started(P(6), {0}, 1);
  CHECK_FALSE(tracker.task_vanished(0, 0));  // the old attempt's agent
  CHECK_FALSE(tracker.task_left(0, 0, 0));
  CHECK(tracker.carrier_of(0) == P(6));
  CHECK(tracker.carrier_ended(P(5)).empty());  // the first step ends late
  CHECK(tracker.carrier_ended(P(6)) == std::vector<std::size_t>{0});
}

TEST_CASE("a unit whose carrier ends before all its tasks joined never ran them") {
  UnitTracker tracker({1, 2});
  tracker.started(P(9), {0, 1}, 0);
  tracker.task_joined(1, 0, 0);
  tracker.task_joined(1, 1, 1);  // another attempt: ignored
  tracker.task_joined(1, 0, 5);  // no such task: ignored
  CHECK(tracker.carrier_ended(P(9)) == std::vector<std::size_t>{0, 1});
  CHECK_FALSE(tracker.all_joined(0));
  CHECK_FALSE(tracker.all_joined(1));
  tracker.started(P(10), {1}, 1);
  tracker.task_joined(1, 1, 0);
  tracker.task_joined(1, 1, 1);
  CHECK(tracker.carrier_ended(P(10)) == std::vector<std::size_t>{1});
  CHECK(tracker.all_joined(1));
}

TEST_CASE("an in-launcher task and a process with the same number are different carriers") {
  UnitTracker tracker({1, 1});
  tracker.started(UnitHandle::of_task(slipway::tasks::TaskId{42}), {0}, 0);
  tracker.started(P(42), {1}, 0);
  CHECK(tracker.carrier_ended(P(42)) == std::vector<std::size_t>{1});
  CHECK(tracker.carrier_of(0).task() == slipway::tasks::TaskId{42});
  CHECK(tracker.carrier_of(0).pid() == -1);
}

// A unit whose carrier ended before its agent said how it ended is held
// for the rendezvous's verdict on the agent (LauncherLoop: srun reporting a
// killed task before the agent's connection is heard to drop).
TEST_CASE("a held unit ends at its agent's verdict, its last leave, or the end of its wait") {
  using slipway::launch::Clock;
  using slipway::launch::UnitExit;
  const Clock::time_point t0{};
  UnitTracker tracker({1, 2, 1});
  tracker.started(P(5), {0, 1, 2}, 0);
  CHECK(tracker.carrier_ended(P(5)) == std::vector<std::size_t>{0, 1, 2});
  CHECK_FALSE(tracker.next_deadline());
  tracker.hold(0, UnitExit{false, 137}, t0 + std::chrono::seconds(2));
  tracker.hold(1, UnitExit{false, 137}, t0 + std::chrono::seconds(1));
  tracker.hold(2, UnitExit{true, 9}, t0 + std::chrono::seconds(3));
  CHECK(tracker.held(0));
  CHECK_FALSE(tracker.carrier_of(0));
  CHECK(tracker.next_deadline() == t0 + std::chrono::seconds(1));
  // The verdict: lost. Another attempt's is not its.
  CHECK_FALSE(tracker.task_vanished(0, 1));
  CHECK(tracker.task_vanished(0, 0));
  CHECK_FALSE(tracker.held(0));
  CHECK_FALSE(tracker.task_vanished(0, 0));  // ended
  // A leave heard late: the unit ends with its tasks' status.
  CHECK_FALSE(tracker.task_left(1, 0, 4));
  CHECK(tracker.held(1));
  CHECK(tracker.task_left(1, 0, 0) == 4);
  CHECK_FALSE(tracker.held(1));
  // No verdict: the carrier's exit once the wait is over.
  CHECK(tracker.expired(t0 + std::chrono::milliseconds(2999)).empty());
  const auto expired = tracker.expired(t0 + std::chrono::seconds(3));
  REQUIRE(expired.size() == 1);
  CHECK(expired[0].first == 2);
  CHECK(expired[0].second.signaled);
  CHECK(expired[0].second.code == 9);
  CHECK_FALSE(tracker.held(2));
  CHECK_FALSE(tracker.next_deadline());
  CHECK_FALSE(tracker.release(2));
}

TEST_CASE("a running unit is not held, and a new start ends a hold") {
  using slipway::launch::Clock;
  using slipway::launch::UnitExit;
  const Clock::time_point t0{};
  UnitTracker tracker({1});
  tracker.started(P(5), {0}, 0);
  tracker.hold(0, UnitExit{false, 137}, t0);
  CHECK_FALSE(tracker.held(0));
  CHECK(tracker.carrier_ended(P(5)) == std::vector<std::size_t>{0});
  tracker.hold(0, UnitExit{false, 137}, t0);
  REQUIRE(tracker.release(0));
  CHECK_FALSE(tracker.held(0));
  tracker.hold(0, UnitExit{false, 137}, t0);
  tracker.started(P(6), {0}, 1);
  CHECK_FALSE(tracker.held(0));
  CHECK(tracker.expired(t0).empty());
}
