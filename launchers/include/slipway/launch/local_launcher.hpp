// The embedded local launcher behind `slipway run`: runs a whole program on
// this machine, with no Slurm.
//
// Contract: plans the program (when it does not fit: an Invalid outcome,
// nothing started; launch_outcome.hpp), creates a run directory
// (printed on stderr), runs the rendezvous in-process, starts every task
// (a task alone in its unit, in the launcher's own event loop with the
// task runner slipway-exec uses, tasks/task_runner.hpp, a horovod node's
// store hosted here too; the tasks of a colocate group, and mpi tasks (a
// PMIx server each), under a slipway-exec of their own;
// SLIPWAY_INLINE_TASKS=0 puts every unit under slipway-exec), supervises
// them (supervisor.hpp: retries with backoff, daemons stopped at the end),
// and returns its outcome: status 0 only when every non-daemon task
// succeeded. SIGINT/SIGTERM/
// SIGHUP stop the program in order (SIGTERM, then SIGKILL after the grace
// period; a second signal kills at once); when the launcher itself is
// killed, every task dies with it (parent-death signals, subreaping, and
// the guard and keeper processes: see run_guarded in launcher_guard.hpp).
// Tasks start within the launcher's descriptor budget (the rest wait:
// descriptor_budget.hpp); output never waits for the terminal
// (terminal_stream.hpp); task logs are bounded (task_log.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "slipway/core/plan.hpp"
#include "slipway/launch/launch_outcome.hpp"

namespace slipway::launch {

struct LocalRunOptions {
  std::string topology_path;
  core::LocalAllocationOptions allocation;
  std::string run_root;      // empty: default_run_root()
  std::string exec_path;     // the slipway-exec binary
  std::chrono::milliseconds grace{10000};
  // A stop by a signal first gives every task a checkpoint notice; tasks
  // that hear notices may run this long after it (docs/resume.md).
  std::chrono::milliseconds notice_window{10000};
  // A run directory to resume (`slipway run --resume`); empty: a new run.
  std::string resume_run;
  // The observe endpoint (docs/observe.md): "HOST:PORT" or "PORT", "none"
  // for none; empty: [program] metrics_port, else 127.0.0.1, any free port.
  std::string metrics;
  std::chrono::milliseconds wire_timeout{300000};
  // The bound of each task log (SLIPWAY_LOG_LIMIT, read by run_local and by
  // every agent; 0: none).
  std::uint64_t log_limit = std::uint64_t{64} << 20;
  bool verbose = false;
};

// Runs `program` (loaded and validated by the caller). The caller runs it
// under run_guarded (launcher_guard.hpp) so that nothing outlives it.
LaunchOutcome run_local(const LocalRunOptions& options, const core::Program& program);

}  // namespace slipway::launch
