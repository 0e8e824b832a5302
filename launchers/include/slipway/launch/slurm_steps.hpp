// The srun command lines of the Slurm controller: a job step per launch
// unit (a task, or a colocated group replica) placed on one host of the
// allocation, or one step for the replicas of a node that share a host
// (their first launch), run by one agent unless the node is an MPI one.
// The salloc line is in salloc_arguments.hpp.
//
// Contract: pure functions, unit-tested. Steps share the allocation
// (--exact), never kill their siblings (--kill-on-bad-exit=0), name their
// units (--job-name=PROGRAM:UNIT), reserve the units' CPUs, GPUs and
// memory, and run `slipway-exec` with the arguments the agent needs. The
// secret is never put on a command line: it travels in the environment.
#pragma once

#include <cstdint>
#include <optional>
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
  // More than one: a step of `tasks` replicas of `node`, replica_base and
  // the next ones.
  std::uint32_t tasks = 1;
  std::string node;
  std::uint32_t replica_base = 0;
  // How a step of several replicas runs them: one agent for all of them
  // (one Slurm task holding their CPUs and memory), or one agent per
  // replica (a Slurm task each: an MPI node, whose agent hosts its task's
  // PMIx server).
  bool one_agent = false;
  // slipway-exec and its arguments; a step of several replicas adds which
  // replicas it runs itself.
  std::vector<std::string> agent_argv;
};

// The most replicas one step holds: an agent running them keeps a few
// descriptors and two threads per task (task_runner.hpp), which stays
// within a default limit of 1024 descriptors.
inline constexpr std::size_t kMaxTasksPerStep = 128;

// What a unit reserves: the sum over its tasks (colocated tasks share a host).
StepRequest step_for_unit(const core::Plan& plan, const LaunchUnit& unit);

// Splits units starting together on their first attempt (in plan order)
// into steps: consecutive replicas of one node on the same host
// (unit_hosts[u]), one task per unit, no GPUs, memory that divides evenly
// per CPU, share one step (at most kMaxTasksPerStep); any other unit is a
// step of its own. A step
// spans one host so that a lost host costs only its own steps: Slurm holds
// a step's CPUs on every host until the step completes on all of them,
// which for a dead host is when Slurm declares it down.
std::vector<std::vector<std::size_t>> group_into_steps(const core::Plan& plan,
                                                       const std::vector<LaunchUnit>& units,
                                                       const std::vector<std::size_t>& starting,
                                                       const std::vector<std::string>& unit_hosts);

// How many job steps the program's first launch starts: every unit on its
// planned host, grouped as group_into_steps does (a unit on a satellite
// slot is a step of its own, in its satellite job, and is not counted:
// it is not a step of this job). Restarts and resizes start more.
std::size_t first_launch_steps(const core::Plan& plan, const std::vector<LaunchUnit>& units);

// Why a program that starts `steps` job steps cannot run in a job whose
// Slurm allows `max_steps` (MaxStepCount): a sentence naming both numbers
// and what to do; nothing when it fits.
std::optional<std::string> step_limit_problem(std::size_t steps, std::uint64_t max_steps);

// The step of a group from group_into_steps (two or more units): one agent
// for them all unless their node's framework is mpi.
StepRequest step_for_units(const core::Plan& plan, const std::vector<LaunchUnit>& units,
                           const std::vector<std::size_t>& group,
                           const std::vector<std::string>& unit_hosts);

// srun's argv: `--nodes=1 --ntasks=N --nodelist=HOST`. N = 1 for one unit,
// and for a step of several replicas run by one agent, which gets
// `--node NODE --replicas A-B` and the CPUs and memory of them all; else
// N = step.tasks, and each task's agent gets `--node NODE` and runs replica
// $SLIPWAY_REPLICA (set by slipway.so in slurmstepd), else replica_base +
// $SLURM_PROCID.
std::vector<std::string> srun_command(const StepRequest& step);

// Variables the step's srun must have on top of the controller's own
// environment ("NAME=VALUE"): for a step of one agent per replica,
// SLIPWAY_PROGRAM and SLIPWAY_REPLICA_BASE (slipway.so's cue).
std::vector<std::string> step_environment(const StepRequest& step);
// Variables of the controller's environment a step must not inherit
// (SLIPWAY_REPLICA and SLIPWAY_REPLICA_BASE, from an enclosing program).
bool step_drops_variable(std::string_view entry);

}  // namespace slipway::launch
