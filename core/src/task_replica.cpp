// SLIPWAY_REPLICA of a task from SLIPWAY_REPLICA_BASE and its global task id.
#include "slipway/core/task_replica.hpp"

#include <charconv>

namespace slipway::core {

std::optional<std::string> replica_for_task(std::string_view base, std::uint32_t global_task_id) {
  if (base.empty() || base.size() > 10) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(base.data(), base.data() + base.size(), value);
  if (ec != std::errc{} || end != base.data() + base.size()) {
    return std::nullopt;
  }
  const std::uint64_t replica = value + global_task_id;
  if (replica > kMaxReplica) {
    return std::nullopt;
  }
  return std::to_string(replica);
}

}  // namespace slipway::core
