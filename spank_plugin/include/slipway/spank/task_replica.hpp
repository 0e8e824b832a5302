// Remote context (slurmstepd): the replica index of a task in a slipway step.
// The controller launches the replicas [BASE, BASE+ntasks) of one node as
// one step with SLIPWAY_REPLICA_BASE=BASE in the step's environment; the
// plugin's task_init sets SLIPWAY_REPLICA=BASE+<global task id> for each
// task, unless the step already set SLIPWAY_REPLICA itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace slipway::spank {

// Largest replica index accepted (bounds what is read from the environment).
inline constexpr std::uint64_t kMaxReplica = 1'000'000'000;

// BASE + task id as decimal text; nullopt when `base` is not a plain
// decimal number or the sum is above kMaxReplica.
std::optional<std::string> replica_for_task(std::string_view base, std::uint32_t global_task_id);

}  // namespace slipway::spank
