// Grouping of a plan's tasks into launch units (colocation).
#include "slipway/launch/launch_units.hpp"

#include <algorithm>
#include <map>

namespace slipway::launch {
namespace {

// Units that share a world node share a world: the connected components of
// units and world nodes, numbered in plan order.
void assign_worlds(const core::Plan& plan, std::vector<LaunchUnit>& units) {
  std::map<std::string, int> world_of_node;
  std::vector<int> parent;  // union-find over provisional world ids
  auto find = [&parent](int x) {
    while (parent[static_cast<std::size_t>(x)] != x) x = parent[static_cast<std::size_t>(x)];
    return x;
  };
  for (LaunchUnit& unit : units) {
    for (std::uint32_t t : unit.tasks) {
      const core::NodeSpec& node = plan.node(plan.tasks[t]);
      if (!forms_world(*node.framework)) continue;
      // Every mpi node of a program is one MPI world (MPMD): one key.
      const std::string key = *node.framework == core::Framework::mpi ? std::string("\0mpi", 4)
                                                                       : *node.name;
      auto [it, added] = world_of_node.emplace(key, static_cast<int>(parent.size()));
      if (added) parent.push_back(it->second);
      const int w = find(it->second);
      if (unit.world < 0) {
        unit.world = w;
      } else if (find(unit.world) != w) {
        parent[static_cast<std::size_t>(w)] = find(unit.world);
      }
    }
  }
  std::map<int, int> dense;
  for (LaunchUnit& unit : units) {
    if (unit.world < 0) continue;
    const int root = find(unit.world);
    auto [it, added] = dense.emplace(root, static_cast<int>(dense.size()));
    unit.world = it->second;
  }
}

}  // namespace

bool forms_world(core::Framework framework) {
  switch (framework) {
    case core::Framework::torch:
    case core::Framework::jax:
    case core::Framework::horovod:
    case core::Framework::paddle:
    case core::Framework::tensorflow:
    case core::Framework::mpi:
      return true;
    case core::Framework::none:
      return false;
  }
  return false;
}

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
  assign_worlds(plan, units);
  return units;
}

std::vector<std::size_t> unit_of_each_task(const std::vector<LaunchUnit>& units, std::size_t task_count) {
  std::vector<std::size_t> unit_of(task_count, units.size());
  for (std::size_t u = 0; u < units.size(); ++u) {
    for (std::uint32_t t : units[u].tasks) unit_of.at(t) = u;
  }
  return unit_of;
}

}  // namespace slipway::launch
