// The salloc line of `slipway launch` outside an allocation (`srun
// --program=FILE` and `slipway launch FILE` on a login node): what the user
// asked for, plus what the program needs and the user left out.
//
// Contract: pure functions, unit-tested; docs/slurm.md lists what is added.
#pragma once

#include <string>
#include <vector>

#include "slipway/core/topology.hpp"

namespace slipway::launch {

// salloc arguments for `program`. With the user's srun arguments (words as
// srun got them: `-N3`, `-N 3`, `--nodes=3` ...) those describe the
// allocation and are kept as given, in order; slipway adds only what they
// leave out:
// - `--ntasks=T`, T = the program's tasks (elastic nodes at their maximum),
//   raised to the number of hosts the user named (-N/--nodes, the upper
//   bound of MIN-MAX, or the hosts of -w/--nodelist): Slurm runs at least
//   one task per host and would otherwise drop hosts. Not added when the
//   user gave -n/--ntasks, nor --ntasks-per-node together with a host count
//   (Slurm derives the tasks from those).
// - `--cpus-per-task=C`, C = the largest `cpus` of any node, unless the
//   user gave -c/--cpus-per-task or -n/--ntasks.
// Without user arguments: one component per distinct (partition, cpus,
// gpus, mem, constraint, account, qos, time) shape with as many tasks as
// its nodes have replicas at most, joined with ':' (a heterogeneous job).
// Always `--job-name=PROGRAM --no-kill` first, so a lost host costs only
// its tasks.
std::vector<std::string> salloc_arguments(const core::Program& program,
                                          const std::vector<std::string>& user_srun_args);

// Whether salloc arguments ask for GPUs or any other generic resource
// (--gres, --gpus*, -G, --cpus-per-gpu, --mem-per-gpu, --tres-*): a job
// allocated without them holds no GPU.
bool requests_gres(const std::vector<std::string>& salloc_args);

}  // namespace slipway::launch
