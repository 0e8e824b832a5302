// RUN/outcome.json (run_outcome.hpp): the failed unit of a colocate group
// with the task that failed it and its traceback file, the causes, the
// traceback of the failed attempt only, the file's bounds, a reader that
// refuses what is no outcome, and the outcome of a run that ended in error.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../../lib/local_plan.hpp"
#include "../../lib/temp_dir.hpp"
#include "slipway/launch/launch_units.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/run_outcome.hpp"
#include "slipway/launch/supervisor.hpp"

namespace fs = std::filesystem;
using namespace slipway;
using namespace slipway::launch;

using slipway::test::read_all;
using slipway::test::TempDir;

namespace {

const char* kColocated = R"(
[program]
name = "colo"
[node.a]
command = "true"
colocate = "g"
[node.b]
command = "true"
colocate = "g"
[node.c]
command = "true"
)";

std::vector<SupervisedUnitSpec> specs_of(const std::vector<LaunchUnit>& units) {
  std::vector<SupervisedUnitSpec> specs;
  for (const LaunchUnit& unit : units) specs.push_back({unit.name, unit.daemon, unit.max_retries, unit.world});
  return specs;
}

constexpr const char* kTraceback =
    "Traceback (most recent call last):\n"
    "  File \"prog.py\", line 3, in worker\n"
    "    raise RuntimeError('gave up')\n"
    "RuntimeError: gave up\n";

}  // namespace

TEST_CASE("a colocated unit's outcome names the task that failed it and its traceback") {
  TempDir tmp("slipway-outcome-test");
  auto run = RunDirectory::create(tmp.path + "/runs", "colo");
  const core::Plan plan = test::local_plan_of(kColocated);
  const auto units = launch_units(plan);
  REQUIRE(units.size() == 2);
  REQUIRE(units[0].name == "a.0+b.0");
  { std::ofstream(run.logs_path() + "/b.0.log") << "=== slipway: b.0 attempt 0 on here at now ===\nstarting\n" << kTraceback; }
  { std::ofstream(run.logs_path() + "/a.0.log") << "=== slipway: a.0 attempt 0 on here at now ===\nfine\n"; }

  Supervisor supervisor(specs_of(units), SupervisorOptions{});
  const auto now = Clock::now();
  supervisor.start(now);
  OutcomeRecorder recorder;
  recorder.task_ended(MemberEnded{"c.0", 0, "here", false, 0, ""});
  recorder.task_ended(MemberEnded{"b.0", 0, "here", false, 1, ""});  // b.0 fails first
  recorder.task_ended(MemberEnded{"a.0", 0, "here", false, 143, ""});  // a.0 stopped by the agent
  recorder.unit_ended(0, 0, UnitExit{false, 1}, false);
  supervisor.unit_exited(1, UnitExit{false, 0}, now);
  supervisor.unit_exited(0, UnitExit{false, 1}, now);
  REQUIRE(supervisor.unit(0).state == UnitState::Failed);

  const RunOutcome outcome = recorder.finish(plan, units, supervisor, 0, 0, 1, "task a.0+b.0 exited with status 1", run);
  CHECK(outcome.result == "failed");
  CHECK_FALSE(outcome.success());
  CHECK(outcome.exit == 1);
  CHECK(outcome.program == "colo");
  REQUIRE(outcome.failed_unit);
  const FailedUnit& failed = *outcome.failed_unit;
  CHECK(failed.name == "a.0+b.0");
  CHECK(failed.cause.kind == "exit");
  CHECK(failed.cause.code == 1);
  CHECK(failed.cause.description == "exited with status 1");
  REQUIRE(failed.tasks.size() == 2);
  CHECK(failed.tasks[0].node == "a");
  CHECK_FALSE(failed.tasks[0].failed);
  CHECK(failed.tasks[0].exit_status == 143);
  CHECK(failed.tasks[0].traceback.empty());
  CHECK(failed.tasks[1].node == "b");
  CHECK(failed.tasks[1].replica == 0);
  CHECK(failed.tasks[1].failed);
  CHECK(failed.tasks[1].exit_status == 1);
  CHECK(failed.tasks[1].log == run.logs_path() + "/b.0.log");
  CHECK(failed.tasks[1].traceback == run.logs_path() + "/b.0.traceback");
  CHECK(read_all(failed.tasks[1].traceback) == kTraceback);
  CHECK(outcome.units.at("failed") == 1);
  CHECK(outcome.units.at("done") == 1);

  // Written atomically, private, and read back as written.
  write_outcome(run.path(), outcome);
  struct stat st{};
  REQUIRE(::stat((run.path() + "/outcome.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK_FALSE(fs::exists(run.path() + "/outcome.json.tmp"));
  const auto back = read_outcome(run.path());
  REQUIRE(back);
  CHECK(back->result == "failed");
  CHECK(back->exit == 1);
  CHECK(back->message == "task a.0+b.0 exited with status 1");
  REQUIRE(back->failed_unit);
  CHECK(back->failed_unit->name == "a.0+b.0");
  REQUIRE(back->failed_unit->tasks.size() == 2);
  CHECK(back->failed_unit->tasks[1].failed);
  CHECK(back->failed_unit->tasks[1].traceback == failed.tasks[1].traceback);
  CHECK_FALSE(back->failed_unit->tasks[0].traceback.size());
  CHECK(back->units.at("done") == 1);
}

TEST_CASE("the causes of a failed unit: a signal, a loss, a start that failed, none recorded") {
  TempDir tmp("slipway-outcome-test");
  auto run = RunDirectory::create(tmp.path + "/runs", "colo");
  const core::Plan plan = test::local_plan_of(kColocated);
  const auto units = launch_units(plan);
  auto failed_with = [&](auto record) {
    Supervisor supervisor(specs_of(units), SupervisorOptions{});
    supervisor.start(Clock::now());
    OutcomeRecorder recorder;
    record(recorder);
    supervisor.unit_exited(1, UnitExit{true, SIGKILL}, Clock::now());
    return recorder.finish(plan, units, supervisor, 0, 0, 1, "", run);
  };
  auto killed = failed_with([](OutcomeRecorder& r) { r.unit_ended(1, 0, UnitExit{true, SIGKILL}, false); });
  REQUIRE(killed.failed_unit);
  CHECK(killed.failed_unit->name == "c.0");
  CHECK(killed.failed_unit->cause.kind == "signal");
  CHECK(killed.failed_unit->cause.code == SIGKILL);
  REQUIRE(killed.failed_unit->tasks.size() == 1);
  CHECK(killed.failed_unit->tasks[0].failed);  // the unit's only task
  CHECK(killed.failed_unit->tasks[0].exit_status == 128 + SIGKILL);  // its unit's, as it reported none
  CHECK(killed.failed_unit->tasks[0].log.empty());  // it has none

  auto lost = failed_with([](OutcomeRecorder& r) {
    r.task_ended(MemberEnded{"c.0", 0, "gone", true, 0, "connection lost"});
    r.unit_ended(1, 0, UnitExit{true, SIGKILL}, true);
  });
  CHECK(lost.failed_unit->cause.kind == "lost");
  CHECK(lost.failed_unit->tasks[0].vanished);
  CHECK_FALSE(lost.failed_unit->tasks[0].exit_status);

  auto unstarted = failed_with([](OutcomeRecorder& r) { r.not_started(1, 0, "no such command"); });
  CHECK(unstarted.failed_unit->cause.kind == "start_failed");
  CHECK(unstarted.failed_unit->cause.description.find("no such command") != std::string::npos);

  // An end recorded for an earlier attempt is not this one's.
  auto unknown = failed_with([](OutcomeRecorder& r) { r.unit_ended(1, 3, UnitExit{false, 2}, false); });
  CHECK(unknown.failed_unit->cause.kind == "unknown");
}

TEST_CASE("a run that succeeded or was stopped names no failed unit") {
  TempDir tmp("slipway-outcome-test");
  auto run = RunDirectory::create(tmp.path + "/runs", "colo");
  const core::Plan plan = test::local_plan_of(kColocated);
  const auto units = launch_units(plan);
  Supervisor supervisor(specs_of(units), SupervisorOptions{});
  supervisor.start(Clock::now());
  OutcomeRecorder recorder;
  const auto stopped = recorder.finish(plan, units, supervisor, 0, 0, 143, "stopped by signal 15", run);
  CHECK(stopped.result == "stopped");
  CHECK_FALSE(stopped.failed_unit);
  CHECK(outcome_json(stopped).find("\"failed_unit\": null") != std::string::npos);
  const auto done = recorder.finish(plan, units, supervisor, 0, 0, 0, "all tasks finished", run);
  CHECK(done.result == "succeeded");
  CHECK(done.success());
}

TEST_CASE("the traceback is the failed attempt's, bounded") {
  const std::string two_attempts = std::string("=== slipway: w.0 attempt 0 on h at t ===\n") + kTraceback +
                                   "=== slipway: w.0 attempt 1 on h at t ===\nSegmentation fault\n";
  CHECK_FALSE(traceback_in_log(two_attempts, "w.0", 1));  // attempt 1 printed none
  CHECK_FALSE(traceback_in_log(two_attempts, "w.0", 0));  // attempt 1 wrote last
  const std::string epoch = std::string("=== slipway: w.0 attempt 2 epoch 1 on h at t ===\n") + kTraceback;
  CHECK(traceback_in_log(epoch, "w.0", 2) == std::string(kTraceback));
  CHECK_FALSE(traceback_in_log(epoch, "w.0", 20));
  // The tail of a long log, with no header: the last traceback in it.
  const std::string chained = std::string("x\n") + kTraceback + "\nDuring handling...\n\n" + kTraceback;
  CHECK(traceback_in_log(chained, "w.0", 0) == std::string(kTraceback));
  CHECK_FALSE(traceback_in_log("no Traceback (most recent call last): here\n", "w.0", 0));
  std::string huge = std::string(kTraceback).substr(0, 35);
  huge += std::string(kMaxTraceback * 2, 'x') + "\nRuntimeError: end\n";
  const auto cut = traceback_in_log(huge, "w.0", 0);
  REQUIRE(cut);
  CHECK(cut->size() < kMaxTraceback + 200);
  CHECK(cut->rfind("Traceback (most recent call last):\n[slipway: ", 0) == 0);
  CHECK(cut->substr(cut->size() - 18) == "RuntimeError: end\n");
}

TEST_CASE("outcome.json is bounded and its reader refuses what is no outcome") {
  TempDir tmp("slipway-outcome-test");
  auto run = RunDirectory::create(tmp.path + "/runs", "big");
  RunOutcome outcome;
  outcome.program = "big";
  outcome.result = "failed";
  outcome.message = std::string(100000, 'm');
  FailedUnit unit;
  unit.name = std::string(100000, 'u');
  for (int i = 0; i < 1000; ++i) {
    OutcomeTask task;
    task.node = "n";
    task.replica = static_cast<std::uint32_t>(i);
    unit.tasks.push_back(task);
  }
  outcome.failed_unit = unit;
  const std::string text = outcome_json(outcome);
  CHECK(text.size() < kMaxOutcomeFile);
  write_outcome(run.path(), outcome);
  auto back = read_outcome(run.path());
  REQUIRE(back);
  CHECK(back->message.size() == kMaxMessage);
  CHECK(back->failed_unit->name.size() == kMaxText);
  CHECK(back->failed_unit->tasks.size() == kMaxListedTasks);
  CHECK(back->failed_unit->tasks_omitted == 1000 - kMaxListedTasks);

  const std::string file = run.path() + "/outcome.json";
  { std::ofstream(file) << "{\"schema\": 2, \"exit\": 0}"; }
  CHECK_FALSE(read_outcome(run.path()));
  { std::ofstream(file) << "not json"; }
  CHECK_FALSE(read_outcome(run.path()));
  { std::ofstream(file) << "{\"schema\": 1, \"exit\": 0, \"result\": \"succeeded\"" << std::string(kMaxOutcomeFile, ' ') << "}"; }
  CHECK_FALSE(read_outcome(run.path()));
  fs::remove(file);
  REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
  CHECK_FALSE(read_outcome(run.path()));  // never waits on a FIFO
}

TEST_CASE("a resumed run has no outcome until it ends again") {
  TempDir tmp("slipway-outcome-test");
  auto run = RunDirectory::create(tmp.path + "/runs", "again");
  run.write_file("plan.json", "{}\n");
  write_outcome(run.path(), RunOutcome{});
  REQUIRE(read_outcome(run.path()));
  RunDirectory::resume(run.path(), "again");
  CHECK_FALSE(fs::exists(run.path() + "/outcome.json"));
}

TEST_CASE("a run the launcher could not carry on records an error, when it has a run directory") {
  TempDir tmp("slipway-outcome-test");
  auto run = RunDirectory::create(tmp.path + "/runs", "broken");
  write_error_outcome(run.path(), "broken", "error: cannot start the rendezvous");
  const auto outcome = read_outcome(run.path());
  REQUIRE(outcome);
  CHECK(outcome->result == "error");
  CHECK_FALSE(outcome->success());
  CHECK(outcome->exit == 1);
  CHECK(outcome->message == "error: cannot start the rendezvous");
  CHECK_FALSE(outcome->failed_unit);
  write_error_outcome("", "broken", "no run directory: nothing written, nothing thrown");
  write_error_outcome(tmp.path + "/no/such/dir", "broken", "cannot be written: nothing thrown");
}
