// UnitTracker: which running process carries which launch units, and what
// each unit's tasks reported through the rendezvous. I/O-free; the
// launcher loop feeds it and acts on its answers.
//
// Contract:
// - started(pid, units, attempt): one process (a slipway-exec, or one srun
//   step) now carries `units`, all on `attempt`; each unit is attached to
//   it until it ends.
// - A unit ends at the first of: every one of its tasks left the
//   rendezvous (task_left returns its exit: the first non-zero status of its
//   tasks, else 0); one of its tasks vanished (task_vanished returns true);
//   its process exited (process_exited lists the units still attached,
//   which end with the process's own status). Reports for another attempt
//   than the one running, or for a unit that already ended, are ignored.
// - task_joined(unit, attempt, k) records that the unit's k-th task joined
//   the rendezvous on that attempt; all_joined(unit) says whether every
//   task of the unit's latest attempt did (kept after the unit ends, until
//   it is started again). A unit whose process ended before all of its
//   tasks joined never ran them: its launcher treats that as a failure.
// - A process whose units have all ended may still run (an srun finishing
//   its step): drained() says so, and process_exited() forgets it.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <map>
#include <optional>
#include <vector>

namespace slipway::launch {

// Ids a launcher gives units it runs without a process of their own are
// above every pid (Linux's PID_MAX_LIMIT is 2^22).
inline constexpr pid_t kMaxPid = pid_t{1} << 22;

class UnitTracker {
 public:
  // tasks_per_unit[u]: how many tasks unit u runs (colocated tasks share one).
  explicit UnitTracker(std::vector<std::size_t> tasks_per_unit);

  void started(pid_t pid, const std::vector<std::size_t>& units, int attempt);
  // Exit status of the unit when this was its last task to leave.
  std::optional<int> task_left(std::size_t unit, int attempt, int exit_status);
  // Whether the unit was running on that attempt (it has now ended).
  bool task_vanished(std::size_t unit, int attempt);
  // Task `task` (0-based within the unit) joined on `attempt`; ignored for
  // another attempt than the running one, or a task out of range.
  void task_joined(std::size_t unit, int attempt, std::size_t task);
  bool all_joined(std::size_t unit) const;
  // The units still attached to `pid`, which end now; empty for an unknown pid.
  std::vector<std::size_t> process_exited(pid_t pid);

  // The process carrying `unit`, or -1 when it is not running.
  pid_t pid_of(std::size_t unit) const { return units_.at(unit).pid; }
  bool drained(pid_t pid) const;
  bool any_process() const { return !processes_.empty(); }
  // Every running process, each with one unit it carried (for signals).
  std::vector<std::pair<pid_t, std::size_t>> processes() const;

 private:
  struct Unit {
    std::size_t tasks = 1;
    pid_t pid = -1;
    int attempt = 0;
    std::size_t left = 0;
    int exit_status = 0;
    std::vector<bool> joined{};  // per task, on `attempt`
  };
  struct Process {
    std::size_t first_unit = 0;
    std::size_t attached = 0;
  };
  void detach(std::size_t unit);

  std::vector<Unit> units_;
  std::map<pid_t, Process> processes_;
};

}  // namespace slipway::launch
