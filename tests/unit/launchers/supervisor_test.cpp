// Supervisor decisions: relaunch within max_retries with backoff, program
// failure when retries run out, daemons stopped at the end, stop requests.
// Over 500 lines, one concern: launch::Supervisor's decisions, one case per
// rule (retries, stops, worlds, elastic sizes, notices), on shared fixtures.
#include <signal.h>

#include <catch2/catch.hpp>

#include "slipway/launch/supervisor.hpp"

using namespace slipway::launch;
using namespace std::chrono_literals;
using Kind = Action::Kind;

namespace {
const Clock::time_point t0{};
UnitExit ok() { return {false, 0}; }
UnitExit failed(int code = 3) { return {false, code}; }
UnitExit killed(int sig) { return {true, sig}; }

SupervisorOptions fast() {
  SupervisorOptions o;
  o.grace = 1000ms;
  o.backoff_initial = 100ms;
  o.backoff_max = 400ms;
  return o;
}
}  // namespace

TEST_CASE("every task is launched at start with attempt 0") {
  Supervisor s({{"a.0"}, {"b.0", true}}, fast());
  auto actions = s.start(t0);
  REQUIRE(actions.size() == 2);
  CHECK(actions[0].kind == Kind::Launch);
  CHECK(actions[0].attempt == 0);
  CHECK(actions[1].unit == 1);
}

TEST_CASE("the program finishes 0 once non-daemons succeed, after stopping daemons") {
  Supervisor s({{"worker.0"}, {"replay.0", true}}, fast());
  s.start(t0);
  auto actions = s.unit_exited(0, ok(), t0);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].kind == Kind::Signal);
  CHECK(actions[0].unit == 1);
  CHECK(actions[0].signal == SIGTERM);
  CHECK_FALSE(s.finished());
  // The daemon dies of the SIGTERM: that is not a failure.
  actions = s.unit_exited(1, killed(SIGTERM), t0 + 10ms);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].kind == Kind::Finish);
  CHECK(actions[0].exit_code == 0);
  CHECK(s.finished());
}

TEST_CASE("a failed task is relaunched with attempt + 1 after a growing backoff") {
  SupervisedUnitSpec spec{"learner.1", false, 2};
  Supervisor s({spec}, fast());
  s.start(t0);
  CHECK(s.unit_exited(0, failed(), t0).empty());
  CHECK(s.unit(0).state == UnitState::Backoff);
  REQUIRE(s.next_deadline() == t0 + 100ms);
  CHECK(s.tick(t0 + 99ms).empty());
  auto actions = s.tick(t0 + 100ms);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].kind == Kind::Launch);
  CHECK(actions[0].attempt == 1);
  // Second failure: backoff doubles.
  s.unit_exited(0, killed(SIGSEGV), t0 + 200ms);
  REQUIRE(s.next_deadline() == t0 + 400ms);
  actions = s.tick(t0 + 400ms);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].attempt == 2);
  // Third success ends the program.
  actions = s.unit_exited(0, ok(), t0 + 500ms);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].kind == Kind::Finish);
  CHECK(actions[0].exit_code == 0);
}

TEST_CASE("backoff is capped") {
  Supervisor s({{"a.0", false, 10}}, fast());
  s.start(t0);
  auto now = t0;
  for (int i = 0; i < 5; ++i) {
    s.unit_exited(0, failed(), now);
    auto deadline = *s.next_deadline();
    CHECK(deadline - now <= 400ms);
    now = deadline;
    s.tick(now);
  }
}

TEST_CASE("retries exhausted: everything is stopped and the program fails naming the task") {
  Supervisor s({{"learner.0", false, 1}, {"actor.0"}, {"replay.0", true}}, fast());
  s.start(t0);
  s.unit_exited(0, failed(7), t0);
  s.tick(t0 + 100ms);
  auto actions = s.unit_exited(0, failed(7), t0 + 200ms);
  REQUIRE(actions.size() == 2);
  CHECK(actions[0].kind == Kind::Signal);
  CHECK(actions[0].unit == 1);
  CHECK(actions[1].unit == 2);
  CHECK(s.unit(0).state == UnitState::Failed);
  // A survivor ignores SIGTERM: SIGKILL after the grace period.
  CHECK(s.next_deadline() == t0 + 1200ms);
  actions = s.tick(t0 + 1200ms);
  REQUIRE(actions.size() == 2);
  CHECK(actions[0].signal == SIGKILL);
  s.unit_exited(1, killed(SIGKILL), t0 + 1300ms);
  actions = s.unit_exited(2, killed(SIGKILL), t0 + 1300ms);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].kind == Kind::Finish);
  CHECK(actions[0].exit_code == 1);
  CHECK_THAT(actions[0].message, Catch::Contains("learner.0") && Catch::Contains("status 7") &&
                                     Catch::Contains("max_retries = 1"));
}

TEST_CASE("max_retries = 0 fails at the first failure") {
  Supervisor s({{"a.0"}}, fast());
  s.start(t0);
  auto actions = s.unit_exited(0, failed(), t0);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].kind == Kind::Finish);
  CHECK(actions[0].exit_code == 1);
  CHECK_THAT(actions[0].message, Catch::Contains("no retries allowed"));
}

TEST_CASE("a stop request ends the program with its exit code; pending restarts are dropped") {
  Supervisor s({{"a.0", false, 3}, {"b.0"}}, fast());
  s.start(t0);
  s.unit_exited(0, failed(), t0);  // a.0 waits to restart
  auto actions = s.stop_requested("interrupted (SIGINT)", 130, t0 + 10ms);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].unit == 1);
  CHECK(s.tick(t0 + 200ms).empty());  // no relaunch while stopping
  actions = s.unit_exited(1, killed(SIGTERM), t0 + 300ms);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].exit_code == 130);
  CHECK(actions[0].message == "interrupted (SIGINT)");
}

TEST_CASE("a second stop request while stopping changes nothing") {
  Supervisor s({{"a.0"}}, fast());
  s.start(t0);
  s.stop_requested("stop requested by a.0", 0, t0);
  CHECK(s.stop_requested("interrupted", 130, t0).empty());
  auto actions = s.unit_exited(0, killed(SIGTERM), t0);
  CHECK(actions.back().exit_code == 0);
}

namespace {
// A world of three ranks (world 0) beside a plain task.
std::vector<SupervisedUnitSpec> torch_world(int max_retries) {
  return {{"trainer.0", false, max_retries, 0},
          {"trainer.1", false, max_retries, 0},
          {"trainer.2", false, max_retries, 0},
          {"logger.0", false, 0, -1}};
}

std::vector<Action> of_kind(const std::vector<Action>& actions, Kind kind) {
  std::vector<Action> out;
  for (const auto& a : actions) {
    if (a.kind == kind) out.push_back(a);
  }
  return out;
}
}  // namespace

TEST_CASE("a failed rank stops its whole world at once, which restarts as the next epoch") {
  Supervisor s(torch_world(2), fast());
  s.start(t0);
  auto all = s.unit_exited(1, failed(), t0);
  // One line says why; the others of the world get SIGTERM now; the logger
  // is left alone.
  auto notes = of_kind(all, Kind::Note);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].message ==
        "the world of trainer.1 (exited with status 3) restarts as epoch 1 (1 of 2 restarts "
        "allowed by max_retries); stopping trainer.0, trainer.2");
  auto actions = of_kind(all, Kind::Signal);
  REQUIRE(actions.size() == 2);
  for (const auto& a : actions) {
    CHECK(a.kind == Kind::Signal);
    CHECK(a.signal == SIGTERM);
    CHECK(a.unit != 3);
  }
  // Their exits (killed by our SIGTERM) are expected: no failure.
  CHECK(s.exit_expected(0));
  CHECK_FALSE(s.exit_expected(3));
  CHECK(s.unit_exited(0, killed(SIGTERM), t0 + 10ms).empty());
  CHECK(s.tick(t0 + 50ms).empty());
  CHECK(s.unit_exited(2, killed(SIGTERM), t0 + 60ms).empty());
  // Once none runs and the backoff has passed, the whole world launches.
  REQUIRE(s.next_deadline() == t0 + 100ms);
  actions = s.tick(t0 + 100ms);
  REQUIRE(actions.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(actions[i].kind == Kind::Launch);
    CHECK(actions[i].unit == i);
    CHECK(actions[i].epoch == 1);
    CHECK(actions[i].attempt == 1);
  }
  CHECK(s.unit(3).epoch == 0);
  CHECK(s.unit(1).epoch == 1);
}

TEST_CASE("a rank that ignores the stop is killed after the grace") {
  Supervisor s(torch_world(1), fast());
  s.start(t0);
  s.unit_exited(0, failed(), t0);
  auto actions = of_kind(s.tick(t0 + 1000ms), Kind::Signal);
  REQUIRE(actions.size() == 2);
  CHECK(actions[0].signal == SIGKILL);
  CHECK(of_kind(s.tick(t0 + 1500ms), Kind::Launch).empty());  // still running
  s.unit_exited(1, killed(SIGKILL), t0 + 1600ms);
  s.unit_exited(2, killed(SIGKILL), t0 + 1600ms);
  CHECK(of_kind(s.tick(t0 + 1600ms), Kind::Launch).size() == 3);
}

TEST_CASE("a world's epochs count against max_retries; then the program fails") {
  Supervisor s(torch_world(1), fast());
  s.start(t0);
  s.unit_exited(2, failed(), t0);
  s.unit_exited(0, killed(SIGTERM), t0);
  s.unit_exited(1, killed(SIGTERM), t0);
  REQUIRE(s.tick(t0 + 100ms).size() == 3);  // epoch 1
  auto actions = s.unit_exited(0, failed(7), t0 + 200ms);
  // No epoch left: the program stops, naming the rank and the epoch.
  auto signals = of_kind(actions, Kind::Signal);
  CHECK(signals.size() == 3);  // trainer.1, trainer.2 and the logger
  s.unit_exited(1, killed(SIGTERM), t0 + 300ms);
  s.unit_exited(2, killed(SIGTERM), t0 + 300ms);
  actions = s.unit_exited(3, killed(SIGTERM), t0 + 300ms);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].kind == Kind::Finish);
  CHECK(actions[0].exit_code == 1);
  CHECK(actions[0].message ==
        "task trainer.0 exited with status 7 in epoch 1 of its world; retries exhausted "
        "(max_retries = 1)");
}

TEST_CASE("ranks that finished first restart with their world, and a world is done when all are") {
  Supervisor s(torch_world(1), fast());
  s.start(t0);
  CHECK(s.unit_exited(0, ok(), t0).empty());  // rank 0 done, others still running
  CHECK(s.unit(0).state == UnitState::Succeeded);
  s.unit_exited(1, failed(), t0);
  s.unit_exited(2, killed(SIGTERM), t0);
  auto launches = of_kind(s.tick(t0 + 100ms), Kind::Launch);
  CHECK(launches.size() == 3);  // rank 0 too: a new epoch is the whole world
  s.unit_exited(0, ok(), t0 + 200ms);
  s.unit_exited(1, ok(), t0 + 200ms);
  s.unit_exited(2, ok(), t0 + 200ms);
  auto actions = s.unit_exited(3, ok(), t0 + 200ms);
  REQUIRE_FALSE(actions.empty());
  CHECK(actions.back().kind == Kind::Finish);
  CHECK(actions.back().exit_code == 0);
}

TEST_CASE("a stop while a world restarts ends it without a new epoch") {
  Supervisor s(torch_world(3), fast());
  s.start(t0);
  s.unit_exited(0, failed(), t0);
  s.stop_requested("slipway stop", 0, t0 + 10ms);
  s.unit_exited(1, killed(SIGTERM), t0 + 20ms);
  s.unit_exited(2, killed(SIGTERM), t0 + 20ms);
  auto actions = s.unit_exited(3, killed(SIGTERM), t0 + 20ms);
  CHECK(of_kind(s.tick(t0 + 500ms), Kind::Launch).empty());
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].kind == Kind::Finish);
  CHECK(actions[0].exit_code == 0);
}

namespace {

// An elastic none node of four slots (two idle at start) beside a learner.
std::vector<SupervisedUnitSpec> elastic_actors() {
  std::vector<SupervisedUnitSpec> specs{{"learner.0"}};
  for (int r = 0; r < 4; ++r) {
    SupervisedUnitSpec spec{"actor." + std::to_string(r)};
    spec.max_retries = 1;
    spec.idle = r >= 2;
    specs.push_back(spec);
  }
  return specs;
}

// A torch world of four slots, two idle at start.
std::vector<SupervisedUnitSpec> elastic_world() {
  std::vector<SupervisedUnitSpec> specs;
  for (int r = 0; r < 4; ++r) {
    SupervisedUnitSpec spec{"trainer." + std::to_string(r)};
    spec.max_retries = 1;
    spec.world = 0;
    spec.idle = r >= 2;
    specs.push_back(spec);
  }
  return specs;
}

}  // namespace

TEST_CASE("idle slots do not start, and growing a none node starts only the new replicas") {
  Supervisor s(elastic_actors(), fast());
  auto launches = s.start(t0);
  REQUIRE(launches.size() == 3);
  CHECK(s.unit(3).state == UnitState::Idle);
  auto actions = s.resize({3, 4}, {}, "scale", t0 + 1ms);
  REQUIRE(actions.size() == 2);
  for (const Action& a : actions) {
    CHECK(a.kind == Kind::Launch);
    CHECK(a.attempt == 0);  // their first run
    CHECK(a.epoch == 0);
  }
  CHECK(s.unit(3).state == UnitState::Running);
}

TEST_CASE("a retired replica is stopped, ends idle whatever its status, and costs no retry") {
  Supervisor s(elastic_actors(), fast());
  s.start(t0);
  auto actions = s.resize({}, {2}, "scale", t0);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].kind == Kind::Signal);
  CHECK(actions[0].unit == 2);
  CHECK(actions[0].signal == SIGTERM);
  CHECK(s.exit_expected(2));
  CHECK_FALSE(s.exit_expected(1));
  // Ignores SIGTERM: SIGKILL after the grace.
  CHECK(s.next_deadline() == t0 + 1000ms);
  actions = s.tick(t0 + 1000ms);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].signal == SIGKILL);
  CHECK(s.unit_exited(2, killed(SIGKILL), t0 + 1001ms).empty());
  CHECK(s.unit(2).state == UnitState::Idle);
  CHECK(s.unit(2).attempt == 0);
  // Growing again: the slot's next run is its attempt 1.
  actions = s.resize({2}, {}, "scale", t0 + 2s);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].attempt == 1);
}

TEST_CASE("a replica asked back while it retires starts again once it ended") {
  Supervisor s(elastic_actors(), fast());
  s.start(t0);
  s.resize({}, {2}, "scale", t0);
  CHECK(s.resize({2}, {}, "scale", t0 + 1ms).empty());
  auto actions = s.unit_exited(2, killed(SIGTERM), t0 + 2ms);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].kind == Kind::Launch);
  CHECK(actions[0].attempt == 1);
}

TEST_CASE("the program finishes when the running replicas are done; idle slots do not hold it") {
  Supervisor s(elastic_actors(), fast());
  s.start(t0);
  CHECK(s.unit_exited(0, ok(), t0).empty());
  CHECK(s.unit_exited(1, ok(), t0).empty());
  // The last running replica is retired: nothing is left to wait for.
  s.resize({}, {2}, "scale", t0);
  auto actions = s.unit_exited(2, killed(SIGTERM), t0 + 1ms);
  REQUIRE_FALSE(actions.empty());
  CHECK(actions.back().kind == Kind::Finish);
  CHECK(actions.back().exit_code == 0);
}

TEST_CASE("resizing a world stops it whole and launches the new size as the next epoch, at once") {
  Supervisor s(elastic_world(), fast());
  CHECK(s.start(t0).size() == 2);
  auto actions = s.resize({2, 3}, {}, "trainer grows from 2 to 4 replicas (slipway scale)", t0);
  const auto notes = of_kind(actions, Kind::Note);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].message ==
        "trainer grows from 2 to 4 replicas (slipway scale): its world restarts as epoch 1 with 4 "
        "replica(s); stopping trainer.0, trainer.1");
  CHECK(of_kind(actions, Kind::Signal).size() == 2);
  CHECK(s.exit_expected(0));
  // A rank killed by the stop is expected, not a failure.
  CHECK(s.unit_exited(0, killed(SIGTERM), t0 + 5ms).empty());
  CHECK(s.tick(t0 + 6ms).empty());  // rank 1 still runs
  CHECK(s.unit_exited(1, failed(1), t0 + 7ms).empty());
  // No backoff: the new epoch launches on the next tick.
  CHECK(s.next_deadline() == t0);
  const auto launches = of_kind(s.tick(t0 + 7ms), Kind::Launch);
  REQUIRE(launches.size() == 4);
  for (const Action& a : launches) CHECK(a.epoch == 1);
  CHECK(launches[0].attempt == 1);
  CHECK(launches[2].attempt == 0);
  // The resize used no retry: a real failure now still restarts the world.
  actions = s.unit_exited(3, failed(2), t0 + 1s);
  CHECK(of_kind(actions, Kind::Note).size() == 1);
  CHECK(of_kind(actions, Kind::Finish).empty());
}

TEST_CASE("shrinking a world leaves the retired ranks idle in the new epoch") {
  Supervisor s(elastic_world(), fast());
  s.start(t0);
  s.resize({2, 3}, {}, "grow", t0);
  s.unit_exited(0, killed(SIGTERM), t0);
  s.unit_exited(1, killed(SIGTERM), t0);
  REQUIRE(of_kind(s.tick(t0), Kind::Launch).size() == 4);
  auto actions = s.resize({}, {2, 3}, "shrink", t0 + 1s);
  CHECK(of_kind(actions, Kind::Signal).size() == 4);
  CHECK(of_kind(actions, Kind::Note)[0].message.find("epoch 2 with 2 replica(s)") != std::string::npos);
  for (std::size_t i = 0; i < 4; ++i) s.unit_exited(i, killed(SIGTERM), t0 + 1s);
  const auto launches = of_kind(s.tick(t0 + 1s), Kind::Launch);
  REQUIRE(launches.size() == 2);
  CHECK(launches[0].unit == 0);
  CHECK(launches[1].unit == 1);
  CHECK(s.unit(2).state == UnitState::Idle);
  CHECK(s.unit(0).epoch == 2);
}

// The launcher shrinks a node whose lost rank has no host with room as the
// loss is heard (LauncherLoop::unit_done): the resize comes while the world
// already restarts for the loss, and the next epoch is the smaller world.
TEST_CASE("a world shrunk while it restarts for a loss starts its next epoch at the smaller size") {
  Supervisor s(torch_world(1), fast());
  s.start(t0);
  auto actions = s.unit_exited(1, killed(SIGKILL), t0);  // trainer.1 lost with its host
  REQUIRE(of_kind(actions, Kind::Note).size() == 1);
  actions = s.resize({}, {2}, "trainer shrinks from 3 to 2 replicas (no host has room for trainer.1)", t0);
  const auto notes = of_kind(actions, Kind::Note);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].message ==
        "trainer shrinks from 3 to 2 replicas (no host has room for trainer.1): its world restarts as "
        "epoch 1 with 2 replica(s); stopping trainer.0, trainer.2");
  CHECK(s.unit_exited(0, killed(SIGTERM), t0 + 10ms).empty());
  CHECK(s.unit_exited(2, killed(SIGTERM), t0 + 10ms).empty());
  CHECK(s.unit(2).state == UnitState::Idle);
  // The loss's backoff still holds; then epoch 1 is ranks 0 and 1 only.
  CHECK(s.tick(t0 + 50ms).empty());
  const auto launches = of_kind(s.tick(t0 + 100ms), Kind::Launch);
  REQUIRE(launches.size() == 2);
  CHECK(launches[0].unit == 0);
  CHECK(launches[1].unit == 1);
  for (const Action& a : launches) CHECK(a.epoch == 1);
  // The loss counted against max_retries = 1 (the shrink did not): the next
  // failure fails the program.
  actions = s.unit_exited(0, failed(5), t0 + 1s);
  CHECK(of_kind(actions, Kind::Note).empty());
  CHECK(s.stopping());
}

namespace {
SupervisedUnitSpec hearing(std::string name, bool daemon = false) {
  SupervisedUnitSpec spec{std::move(name), daemon};
  spec.hears_notice = true;
  return spec;
}
std::vector<std::size_t> signalled(const std::vector<Action>& actions, int sig) {
  std::vector<std::size_t> out;
  for (const Action& a : actions) {
    if (a.kind == Kind::Signal && a.signal == sig) out.push_back(a.unit);
  }
  return out;
}
}  // namespace

TEST_CASE("a stop with a notice lets tasks that hear notices run until the deadline") {
  // plain.0 hears nothing; saver.0 does; replay.0 is a daemon that does.
  Supervisor s({{"plain.0"}, hearing("saver.0"), hearing("replay.0", true)}, fast());
  s.start(t0);
  auto actions = s.stop_with_notice("interrupted by SIGTERM", 143, t0 + 5000ms, t0);
  CHECK(signalled(actions, SIGTERM) == std::vector<std::size_t>{0});
  CHECK(s.stopping());
  CHECK(s.next_deadline() == t0 + 1000ms);  // plain.0's SIGKILL
  actions = s.tick(t0 + 1000ms);
  CHECK(signalled(actions, SIGKILL) == std::vector<std::size_t>{0});  // never the others
  CHECK(s.unit_exited(0, killed(SIGKILL), t0 + 1100ms).empty());
  // The deadline: SIGTERM to what still runs, SIGKILL after the grace.
  CHECK(s.next_deadline() == t0 + 5000ms);
  actions = s.tick(t0 + 5000ms);
  std::vector<std::size_t> expected{1, 2};
  CHECK(signalled(actions, SIGTERM) == expected);
  actions = s.tick(t0 + 6000ms);
  CHECK(signalled(actions, SIGKILL) == expected);
  s.unit_exited(1, killed(SIGKILL), t0 + 6000ms);
  actions = s.unit_exited(2, killed(SIGKILL), t0 + 6000ms);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].kind == Kind::Finish);
  CHECK(actions[0].exit_code == 143);
}

TEST_CASE("after a notice, daemons stop as soon as no non-daemon task runs, and nothing restarts") {
  SupervisedUnitSpec saver = hearing("saver.0");
  saver.max_retries = 3;
  Supervisor s({saver, hearing("replay.0", true)}, fast());
  s.start(t0);
  auto actions = s.stop_with_notice("the time limit is near (SIGUSR1)", 138, t0 + 20000ms, t0);
  CHECK(signalled(actions, SIGTERM).empty());
  // The saver fails while saving: no retry during a stop; the replay daemon
  // goes now, not at the deadline.
  actions = s.unit_exited(0, failed(1), t0 + 300ms);
  CHECK(signalled(actions, SIGTERM) == std::vector<std::size_t>{1});
  for (const Action& a : actions) CHECK(a.kind != Kind::Launch);
  actions = s.unit_exited(1, ok(), t0 + 400ms);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].kind == Kind::Finish);
  CHECK(actions[0].exit_code == 138);
}

TEST_CASE("a daemon that hears notices stops with the others when no non-daemon task hears them") {
  Supervisor s({{"plain.0"}, hearing("replay.0", true)}, fast());
  s.start(t0);
  auto actions = s.stop_with_notice("interrupted by SIGINT", 130, t0 + 5000ms, t0);
  std::vector<std::size_t> both{0, 1};
  CHECK(signalled(actions, SIGTERM) == both);
}
