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
// when another host has room. Exit statuses as `slipway run`.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "slipway/core/topology.hpp"

namespace slipway::launch {

struct SlurmLaunchOptions {
  core::Program program;                // loaded and validated by the caller (cli/)
  std::string topology_path;           // its file, for the re-execution under salloc
  std::vector<std::string> srun_args;  // the user's srun arguments (SPANK hand-over)
  std::string run_root;                // empty: default_run_root()
  std::string exec_path;               // slipway-exec on the compute hosts
  std::string self_path;               // this slipway binary (to re-exec under salloc)
  std::chrono::milliseconds grace{10000};
  std::chrono::milliseconds wire_timeout{300000};
};

int run_slurm(const SlurmLaunchOptions& options);

}  // namespace slipway::launch
