// The runs kept under a run root (run_directory.hpp's layout), for
// `slipway runs` and `slipway logs`: listing them with their state, the
// retention rule that prunes them, and finding a task's log.
//
// Contract: only directories named like a run (PROGRAM-YYYYmmdd-HHMMSS-PID)
// are listed or removed; a run that is running is never removed. How a run
// ended is read from its outcome.json (run_outcome.hpp), else from its
// exit file (runs of older versions). Reading a run needs nothing but its
// files (and, to tell whether it still runs, its rendezvous endpoint or
// its launcher's pid on this host).
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

namespace slipway::launch {

enum class RunState {
  running,  // no exit file, and its rendezvous answers or its launcher lives here
  done,     // exit status 0
  failed,   // exit status other than 0 (the EXIT column says which)
  lost,     // no exit file and no launcher: killed, or its host went away
};
const char* to_string(RunState state);

struct RunRecord {
  std::string path;                // absolute run directory
  std::string name;                // PROGRAM-YYYYmmdd-HHMMSS-PID
  std::string program;
  std::time_t started = 0;         // from the name (local time)
  std::uint32_t resumes = 0;       // RUN/resume: how many times it was resumed (resume.md)
  long launcher_pid = 0;
  RunState state = RunState::lost;
  std::optional<int> exit_code;    // once the run ended normally
  std::string failed;              // who failed it (run_outcome.hpp's failed_task_of), or ""
  std::time_t last_change = 0;     // lost runs: newest modification time of its files
};

// Every run under `root`, oldest first (empty when the root is missing).
std::vector<RunRecord> list_runs(const std::string& root);

// The state of one run directory (as list_runs judges it).
RunRecord read_run(const std::string& run_directory);

// Whether the run has ended (its exit status is written, or its launcher is
// gone): cheaper than read_run, for following a run's logs.
bool run_has_ended(const std::string& run_directory);

// Which runs `slipway runs --prune` removes: those not running that are
// either beyond the `keep_per_program` newest runs of their program or
// started more than `max_age` before `now`. A lost run whose files changed
// within `max_age` is kept (it may still run on a host we cannot reach).
struct RetentionRule {
  std::size_t keep_per_program = 10;
  std::chrono::seconds max_age{std::chrono::hours(24 * 7)};
};
std::vector<RunRecord> runs_to_prune(const std::vector<RunRecord>& runs, const RetentionRule& rule,
                                     std::time_t now);

// Removes one run directory (refusing a running one: returns false with
// `error` set) and points ROOT/latest and ROOT/PROGRAM.latest at the newest
// run left, or removes them when none is.
bool remove_run(const std::string& root, const RunRecord& run, std::string* error);

// The task logs of a run directory as "NODE.REPLICA" names, by node name
// then replica number.
std::vector<std::string> task_log_names(const std::string& run_directory);

// RUN/logs/NODE.REPLICA.log (whether or not it exists yet).
std::string task_log_path(const std::string& run_directory, const std::string& task);

}  // namespace slipway::launch
