// The srun command lines of the Slurm controller: a job step per launch
// unit (a task, or a colocated group replica) placed on one host of the
// allocation, or one step for the replicas of a node that share a host
// (their first launch). The salloc line is in salloc_arguments.hpp.
//
// Contract: pure functions, unit-tested. Steps share the allocation
// (--exact), never kill their siblings (--kill-on-bad-exit=0), name their
// units (--job-name=PROGRAM:UNIT), reserve the units' CPUs, GPUs and
// memory, and run `slipway-exec` with the arguments the agent needs. The
// secret is never put on a command line: it travels in the environment.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/launch/launch_units.hpp"

namespace slipway::launch {

struct StepRequest {
  std::string job_id;
  int het_group = -1;  // -1: not a heterogeneous job
  std::string host;    // Slurm node name
  std::string program;
  std::string unit_name;
  std::uint32_t cpus = 1;    // per task
  std::uint32_t gpus = 0;    // per task
  std::uint64_t mem_mb = 0;  // per task; 0: the step shares the job's memory
  // More than one: a step of `tasks` replicas of `node`, task k running
  // replica replica_base + k.
  std::uint32_t tasks = 1;
  std::string node;
  std::uint32_t replica_base = 0;
  // slipway-exec and its arguments; a step of several replicas adds each
  // task's --task NODE.REPLICA itself.
  std::vector<std::string> agent_argv;
};

// What a unit reserves: the sum over its tasks (colocated tasks share a host).
StepRequest step_for_unit(const core::Plan& plan, const LaunchUnit& unit);

// Splits units starting together on their first attempt (in plan order)
// into steps: consecutive replicas of one node on the same host
// (unit_hosts[u]), one task per unit, no GPUs, memory that divides evenly
// per CPU, share one step; any other unit is a step of its own. A step
// spans one host so that a lost host costs only its own steps: Slurm holds
// a step's CPUs on every host until the step completes on all of them,
// which for a dead host is when Slurm declares it down.
std::vector<std::vector<std::size_t>> group_into_steps(const core::Plan& plan,
                                                       const std::vector<LaunchUnit>& units,
                                                       const std::vector<std::size_t>& starting,
                                                       const std::vector<std::string>& unit_hosts);

// The step of a group from group_into_steps (two or more units).
StepRequest step_for_units(const core::Plan& plan, const std::vector<LaunchUnit>& units,
                           const std::vector<std::size_t>& group,
                           const std::vector<std::string>& unit_hosts);

// srun's argv: `--nodes=1 --ntasks=N --nodelist=HOST`, N = step.tasks. With
// several tasks the agent runs under `/bin/sh -c` that adds
// `--task NODE.R`, R = $SLIPWAY_REPLICA (set by slipway.so in slurmstepd),
// else replica_base + $SLURM_PROCID.
std::vector<std::string> srun_command(const StepRequest& step);

// Variables the step's srun must have on top of the controller's own
// environment ("NAME=VALUE"): for a step of several replicas,
// SLIPWAY_PROGRAM and SLIPWAY_REPLICA_BASE (slipway.so's cue).
std::vector<std::string> step_environment(const StepRequest& step);
// Variables of the controller's environment a step must not inherit
// (SLIPWAY_REPLICA and SLIPWAY_REPLICA_BASE, from an enclosing program).
bool step_drops_variable(std::string_view entry);

}  // namespace slipway::launch
