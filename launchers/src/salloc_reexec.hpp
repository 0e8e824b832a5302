// The Slurm controller outside an allocation: the same command run again
// under salloc, and what the controller there said through its verdict
// file.
#pragma once

#include "slipway/core/topology.hpp"
#include "slipway/launch/launch_outcome.hpp"
#include "slipway/launch/slurm_controller.hpp"

namespace slipway::launch {

// Runs this same command under salloc and waits for it. salloc exits 0
// when its command is killed by a signal, so the controller leaves its exit
// status in a verdict file (--verdict-file): none there means it died
// without one (SIGKILL, a crash), a failure, never a success. The
// terminal's SIGINT and SIGQUIT reach salloc and the controller themselves
// (one process group); SIGTERM and SIGHUP sent to us are passed on to
// salloc, which revokes the allocation (and so does our death). Sets
// core::env::kLaunchInSalloc (and kLaunchNoGpus when salloc asks for no
// GRES: the job then holds none, and there is nothing to ask scontrol) for
// the controller it runs; refuses to run when the first is set already
// (salloc ran us without an allocation).
LaunchOutcome run_under_salloc(const SlurmLaunchOptions& options, const core::Program& program);

}  // namespace slipway::launch
