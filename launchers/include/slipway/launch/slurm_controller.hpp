// The Slurm controller behind `slipway launch FILE` (and `srun --program`):
// runs a program as job steps of a Slurm allocation.
//
// Contract: outside an allocation it re-executes itself under `salloc`
// (salloc_arguments: the user's srun arguments, or one heterogeneous
// component per resource shape; always --no-kill). Inside one, it reads the
// allocation (slurm_allocation.hpp), plans onto its hosts, runs the
// rendezvous on this host (reachable from every host), and starts the
// program's units as steps (slurm_steps.hpp): the replicas of a node that
// start together share one step, laid out host by host as planned, and any
// other unit is a step of its own. It supervises each unit through the
// rendezvous (an agent leaves with its exit status; one that vanishes has
// failed; a step's end ends its units that never reported) with the local
// launcher's engine, and resubmits a failed unit as a new step of its own
// within max_retries, away from a host whose agent vanished (a lost host)
// when another host has room; with none, in a satellite job of its own
// when [program.elastic] satellites allows one (the unit waits for it up
// to satellite_wait, a world's other ranks with it), while an elastic
// torch node's replica shrinks its node at once and the node grows back
// later (docs/elastic.md). Outcomes as `slipway run`'s
// (launch_outcome.hpp).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "slipway/core/topology.hpp"
#include "slipway/launch/launch_outcome.hpp"

namespace slipway::launch {

struct SlurmLaunchOptions {
  std::string topology_path;
  std::vector<std::string> srun_args;  // the user's srun arguments (SPANK hand-over)
  std::string run_root;                // empty: default_run_root()
  std::string exec_path;               // slipway-exec on the compute hosts
  std::string self_path;               // this slipway binary (to re-exec under salloc)
  std::chrono::milliseconds grace{10000};
  // As LocalRunOptions::notice_window (docs/resume.md).
  std::chrono::milliseconds notice_window{10000};
  std::chrono::milliseconds wire_timeout{300000};
  // As LocalRunOptions::metrics (docs/observe.md).
  std::string metrics;
};

// Runs `program` (loaded and validated by the caller) and returns its
// outcome. Outside an allocation it runs this command again under salloc
// (with --verdict-file: the controller there writes its exit status to
// that file, which the `slipway launch` command does) and returns what that
// controller said, or an Error when it ended without saying.
LaunchOutcome run_slurm(const SlurmLaunchOptions& options, const core::Program& program);

}  // namespace slipway::launch
