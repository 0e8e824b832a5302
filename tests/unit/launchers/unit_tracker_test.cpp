// UnitTracker: a process carries units; a unit ends when its tasks have all
// left, when one vanishes, or when its process exits first.
#include <catch2/catch.hpp>

#include "slipway/launch/unit_tracker.hpp"

using slipway::launch::UnitTracker;

TEST_CASE("a step of several units ends each unit as its agent leaves") {
  UnitTracker tracker({1, 1, 1});
  tracker.started(100, {0, 1, 2}, 0);
  CHECK(tracker.pid_of(1) == 100);
  CHECK(tracker.task_left(1, 0, 3) == 3);
  CHECK(tracker.pid_of(1) == -1);
  CHECK_FALSE(tracker.task_left(1, 0, 0));  // already ended
  CHECK(tracker.task_left(0, 0, 0) == 0);
  CHECK_FALSE(tracker.drained(100));
  // The process ends before unit 2 reported: only unit 2 ends with it.
  CHECK(tracker.process_exited(100) == std::vector<std::size_t>{2});
  CHECK_FALSE(tracker.any_process());
  CHECK(tracker.process_exited(100).empty());  // unknown now
}

TEST_CASE("a process whose units all ended is drained until it exits") {
  UnitTracker tracker({1, 1});
  tracker.started(7, {0, 1}, 0);
  CHECK(tracker.task_vanished(0, 0));
  CHECK_FALSE(tracker.task_vanished(0, 0));
  CHECK_FALSE(tracker.drained(7));
  CHECK(tracker.task_left(1, 0, 0) == 0);
  CHECK(tracker.drained(7));
  CHECK(tracker.any_process());
  CHECK(tracker.processes() == std::vector<std::pair<pid_t, std::size_t>>{{7, 0}});
  CHECK(tracker.process_exited(7).empty());
  CHECK_FALSE(tracker.any_process());
}

TEST_CASE("a colocated unit ends when its last task leaves, with the first failure") {
  UnitTracker tracker({3});
  tracker.started(5, {0}, 2);
  CHECK_FALSE(tracker.task_left(0, 2, 0));
  CHECK_FALSE(tracker.task_left(0, 2, 137));
  CHECK(tracker.task_left(0, 2, 1) == 137);
}

TEST_CASE("reports of another attempt are ignored") {
  UnitTracker tracker({1});
  tracker.started(5, {0}, 0);
  CHECK(tracker.task_left(0, 0, 1) == 1);
  tracker.started(6, {0}, 1);
  CHECK_FALSE(tracker.task_vanished(0, 0));  // the old attempt's agent
  CHECK_FALSE(tracker.task_left(0, 0, 0));
  CHECK(tracker.pid_of(0) == 6);
  CHECK(tracker.process_exited(5).empty());  // the first step ends late
  CHECK(tracker.process_exited(6) == std::vector<std::size_t>{0});
}

TEST_CASE("a unit whose process ends before all its tasks joined never ran them") {
  UnitTracker tracker({1, 2});
  tracker.started(9, {0, 1}, 0);
  tracker.task_joined(1, 0, 0);
  tracker.task_joined(1, 1, 1);  // another attempt: ignored
  tracker.task_joined(1, 0, 5);  // no such task: ignored
  CHECK(tracker.process_exited(9) == std::vector<std::size_t>{0, 1});
  CHECK_FALSE(tracker.all_joined(0));
  CHECK_FALSE(tracker.all_joined(1));
  tracker.started(10, {1}, 1);
  tracker.task_joined(1, 1, 0);
  tracker.task_joined(1, 1, 1);
  CHECK(tracker.process_exited(10) == std::vector<std::size_t>{1});
  CHECK(tracker.all_joined(1));
}
