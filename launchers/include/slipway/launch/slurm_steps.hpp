// The srun command lines of the Slurm controller: one job step per launch
// unit (a task, or a colocated group replica), placed on one host of the
// allocation, and the salloc line that obtains an allocation when
// `slipway launch` runs outside one.
//
// Contract: pure functions, unit-tested. Steps share the allocation
// (--exact), never kill their siblings (--kill-on-bad-exit=0), name their
// unit (--job-name=PROGRAM:UNIT), reserve the unit's CPUs, GPUs and memory,
// and run `slipway-exec` with the arguments the agent needs. The secret is
// never put on a command line: it travels in the environment.
#pragma once

#include <cstdint>
#include <string>
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
  std::uint32_t cpus = 1;
  std::uint32_t gpus = 0;
  std::uint64_t mem_mb = 0;  // 0: the step shares the job's memory
  std::vector<std::string> agent_argv;  // slipway-exec and its arguments
};

// What a unit reserves: the sum over its tasks (colocated tasks share a host).
StepRequest step_for_unit(const core::Plan& plan, const LaunchUnit& unit);

std::vector<std::string> srun_command(const StepRequest& step);

// salloc arguments for a program run outside an allocation: the user's own
// srun arguments when given (they describe the allocation; when they say
// nothing of tasks or CPUs, --ntasks and --cpus-per-task for the program's
// largest size are added), else one
// component per distinct (partition, cpus, gpus, mem) shape with as many
// tasks as its nodes have replicas at most, joined with ':' (a
// heterogeneous job). Always --no-kill, so a lost host costs only its tasks.
std::vector<std::string> salloc_arguments(const core::Program& program,
                                          const std::vector<std::string>& user_srun_args);

}  // namespace slipway::launch
