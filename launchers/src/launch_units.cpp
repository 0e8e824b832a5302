// Grouping of a plan's tasks into launch units (colocation).
#include "slipway/launch/launch_units.hpp"

#include <algorithm>
#include <map>

namespace slipway::launch {

std::vector<LaunchUnit> launch_units(const core::Plan& plan) {
  std::vector<LaunchUnit> units;
  std::map<std::pair<std::string, std::uint32_t>, std::size_t> group_unit;
  for (const core::Task& task : plan.tasks) {
    const core::NodeSpec& node = plan.node(task);
    const std::string& group = *node.colocate;
    std::size_t index;
    auto key = std::make_pair(group, task.replica);
    auto found = group.empty() ? group_unit.end() : group_unit.find(key);
    if (found != group_unit.end()) {
      index = found->second;
      LaunchUnit& unit = units[index];
      unit.name += "+" + task.name();
      unit.daemon = unit.daemon && *node.daemon;
      unit.max_retries = std::min(unit.max_retries, static_cast<int>(*node.max_retries));
    } else {
      index = units.size();
      units.push_back(LaunchUnit{{}, task.name(), *node.daemon,
                                 static_cast<int>(*node.max_retries), task.host});
      if (!group.empty()) group_unit.emplace(key, index);
    }
    units[index].tasks.push_back(task.id);
  }
  return units;
}

}  // namespace slipway::launch
