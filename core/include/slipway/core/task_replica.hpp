// The replica of a task in a shared Slurm step, a rule the SPANK plugin
// (task_init, in slurmstepd) and slipway-exec both apply: the controller
// launches the replicas [BASE, BASE+ntasks) of one node as one step with
// SLIPWAY_REPLICA_BASE=BASE in the step's environment, and each task's
// replica is BASE + its global task id, unless the step set SLIPWAY_REPLICA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace slipway::core {

// Largest replica index accepted (bounds what is read from the environment).
inline constexpr std::uint64_t kMaxReplica = 1'000'000'000;

// BASE + task id as decimal text; nullopt when `base` is not a plain
// decimal number or the sum is above kMaxReplica.
std::optional<std::string> replica_for_task(std::string_view base, std::uint32_t global_task_id);

}  // namespace slipway::core
