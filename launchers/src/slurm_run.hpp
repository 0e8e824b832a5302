// The Slurm controller's run inside an allocation: the launcher loop
// (launcher_loop.hpp) over job steps, whose units' hosts the step ledger
// keeps (step_ledger.hpp) and whose satellite jobs the satellite
// controller asks for (satellite_controller.hpp).
#pragma once

#include <cstdint>
#include <optional>

#include "slipway/core/plan.hpp"
#include "slipway/launch/control_plane.hpp"
#include "slipway/launch/launch_outcome.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/slurm_allocation.hpp"
#include "slipway/launch/slurm_controller.hpp"

namespace slipway::launch {

// Runs `plan` (satellite slots added) in `job` from `run_dir` until it
// finishes: its outcome (LauncherLoop::run). `max_steps`: Slurm's
// MaxStepCount, when known (a step past it is refused with a NoRoom that
// says so).
LaunchOutcome run_in_job(const SlurmLaunchOptions& options, SlurmJob job, core::Plan plan, RunDirectory run_dir,
                         std::optional<std::uint64_t> max_steps, ControlPlaneOptions control);

}  // namespace slipway::launch
