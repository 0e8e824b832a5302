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
