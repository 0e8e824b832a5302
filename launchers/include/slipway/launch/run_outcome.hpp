// How a run ended, as data: RUN/outcome.json, which the launcher writes at
// the end of every run (run_local and the Slurm controller alike; schema 1
// in docs/runs.md#outcomejson) and `slipway runs` and Python's
// sw.launch Outcome read, instead of scraping progress lines.
//
// Contract:
// - OutcomeRecorder is fed by the launcher loop as the run goes: every
//   unit's end (unit_ended: its exit, whether it was lost; not_started: the
//   launcher could not start it) and every task's end that the rendezvous
//   heard (task_ended). finish() then builds the RunOutcome from the plan,
//   the units and the supervisor's final states: the failed unit is the
//   one the supervisor marked Failed; its cause is its last recorded end on
//   its last attempt ("unknown" when none was recorded); each of its tasks
//   is listed with how it left on that attempt, `failed` for the first of
//   them (in the order heard) that left non-zero or vanished (a unit of one
//   task: that task, with its unit's status when it reported none), its
//   log when there is one, and its traceback file
//   (write_traceback) when its log shows one for that attempt.
// - outcome_json() is the file's text: bounded (message kMaxMessage bytes,
//   paths and names kMaxText bytes, at most kMaxListedTasks tasks listed,
//   `tasks_omitted` counting the rest).
// - write_outcome() writes RUN/outcome.json atomically (a temporary file,
//   then renamed; mode 0600, as every file of a run directory); the
//   launcher writes it just before RUN/exit.
// - read_outcome() returns nothing when the file is absent, is not a
//   regular file, holds more than kMaxOutcomeFile bytes, or is not a
//   schema-1 outcome; it never blocks on what it opens.
// - traceback_in_log(log_tail, task, attempt): the last Python traceback
//   (from a line "Traceback (most recent call last):" to the end) in the
//   part of a task log that attempt `attempt` wrote (after its "=== slipway:
//   TASK attempt N" header; the whole text when no header is in it, and
//   nothing when a later attempt's header is), at most kMaxTraceback bytes
//   (its end kept). write_traceback() reads the last kMaxLogTail bytes of
//   RUN/logs/TASK.log and writes RUN/logs/TASK.traceback when it holds one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/launch/control_plane.hpp"
#include "slipway/launch/launch_units.hpp"
#include "slipway/launch/supervisor.hpp"

namespace slipway::launch {

class RunDirectory;

inline constexpr int kOutcomeSchema = 1;
inline constexpr std::size_t kMaxMessage = 4096;
inline constexpr std::size_t kMaxText = 4096;
inline constexpr std::size_t kMaxListedTasks = 256;
inline constexpr std::size_t kMaxOutcomeFile = 1 << 20;
inline constexpr std::size_t kMaxTraceback = 64 * 1024;
inline constexpr std::size_t kMaxLogTail = 1 << 20;

// Why the failed unit ended.
struct OutcomeCause {
  // "exit" (code: its status), "signal" (code: the signal), "lost" (its
  // agent vanished: its host or its process was lost), "never_started"
  // (its carrier ended before its tasks joined), "start_failed" (the
  // launcher could not start it), "unknown".
  std::string kind = "unknown";
  int code = 0;
  std::string description;  // in words: "exited with status 1", ...
};

struct OutcomeTask {
  std::string node;
  std::uint32_t replica = 0;
  std::optional<int> exit_status;  // as it left the rendezvous on that attempt
  bool vanished = false;           // it vanished without leaving
  bool failed = false;             // its end failed the unit
  std::string log;                 // RUN/logs/NODE.REPLICA.log when it exists
  std::string traceback;           // its traceback file, when there is one
};

struct FailedUnit {
  std::string name;  // the launch unit: "node.replica", or "a.0+b.0" colocated
  int attempt = 0;   // as its tasks were told (SLIPWAY_ATTEMPT)
  int epoch = 0;
  OutcomeCause cause;
  std::vector<OutcomeTask> tasks;
  std::size_t tasks_omitted = 0;
};

struct RunOutcome {
  std::string program;
  std::string run_directory;
  // "succeeded" (exit 0), "failed" (a unit failed beyond its retries),
  // "stopped" (a signal to the launcher), "error" (the launcher could not
  // run the program).
  std::string result = "error";
  int exit = 1;
  std::string message;
  std::optional<FailedUnit> failed_unit;
  std::map<std::string, std::size_t> units;  // how many units ended in each state
  bool success() const { return result == "succeeded"; }
};

class OutcomeRecorder {
 public:
  void unit_ended(std::size_t unit, int attempt, const UnitExit& exit, bool lost);
  void not_started(std::size_t unit, int attempt, const std::string& why);
  void task_ended(const MemberEnded& event);
  // The task of `unit` whose end on `task_attempt` failed it: the first
  // (in the order heard) that left non-zero or vanished; nothing when none
  // was heard to.
  std::optional<std::string> failed_task(const core::Plan& plan, const LaunchUnit& unit,
                                         int task_attempt) const;

  // `attempt_base`, `epoch_base`: what the supervisor's attempts and
  // epochs are counted on from (a resumed run's).
  RunOutcome finish(const core::Plan& plan, const std::vector<LaunchUnit>& units,
                    const Supervisor& supervisor, int attempt_base, int epoch_base, int exit_code,
                    const std::string& message, const RunDirectory& run_dir) const;

 private:
  struct UnitEnd {
    int attempt = 0;
    OutcomeCause cause;
  };
  struct TaskEnd {
    std::uint32_t attempt = 0;
    bool vanished = false;
    int exit_status = 0;
    std::uint64_t order = 0;
  };
  // The failed unit `u` on its supervisor attempt `attempt`, told to its
  // tasks as `task_attempt`.
  FailedUnit failed_unit(const core::Plan& plan, std::size_t u, const LaunchUnit& unit, int attempt,
                         int task_attempt, int epoch, const RunDirectory& run_dir) const;

  std::map<std::size_t, UnitEnd> unit_ends_;
  std::map<std::string, TaskEnd> task_ends_;
  std::uint64_t heard_ = 0;
};

std::string outcome_json(const RunOutcome& outcome);
// Throws std::runtime_error naming the file and the reason.
void write_outcome(const std::string& run_directory, const RunOutcome& outcome);
// A run the launcher could not carry on (LaunchOutcome::Kind::Error):
// result "error", exit 1, `message`; written when `run_directory` is not
// empty, and nothing said when it cannot be (the error is said already).
void write_error_outcome(const std::string& run_directory, const std::string& program,
                         const std::string& message) noexcept;
std::optional<RunOutcome> read_outcome(const std::string& run_directory);

// Who failed the run: the failed unit's task that failed it ("worker.0"),
// or the unit's name when none of its tasks is known to have; "" when no
// unit failed.
std::string failed_task_of(const RunOutcome& outcome);

std::optional<std::string> traceback_in_log(std::string_view log_tail, const std::string& task, int attempt);
// The traceback file's path, or "" when the log shows none (or it cannot
// be written).
std::string write_traceback(const RunDirectory& run_dir, const std::string& task, int attempt);

}  // namespace slipway::launch
