// Satellite slots of elastic nodes (satellite_slots.hpp).
#include "slipway/core/satellite_slots.hpp"

#include <string>
#include <utility>
#include <vector>

namespace slipway::core {

std::size_t add_satellite_slots(Plan& plan, std::uint32_t jobs) {
  if (jobs == 0) return 0;
  std::vector<Task> tasks;
  tasks.reserve(plan.tasks.size());
  std::size_t added = 0;
  std::size_t next = 0;
  while (next < plan.tasks.size()) {
    // One node's tasks (consecutive, in replica order).
    std::size_t end = next;
    while (end < plan.tasks.size() && plan.tasks[end].node == plan.tasks[next].node) ++end;
    const Task& last = plan.tasks[end - 1];
    const NodeSpec& node = plan.node(last);
    const std::uint32_t planned = static_cast<std::uint32_t>(end - next);
    std::uint32_t slots = planned;
    if (node.replicas.value.elastic() && node.colocate.value.empty()) {
      while (slots < node.replicas.value.max && slots - planned < jobs) ++slots;
    }
    for (std::size_t k = next; k < end; ++k) {
      tasks.push_back(std::move(plan.tasks[k]));
      tasks.back().replicas = slots;
    }
    for (std::uint32_t replica = planned; replica < slots; ++replica) {
      Task slot = tasks.back();
      slot.replica = replica;
      Host host;
      host.name = "satellite:" + slot.name();
      host.cpus = node.cpus.value;
      host.gpus = node.gpus.value;
      host.mem_mb = node.mem_mb.value;
      host.satellite = true;
      slot.host = static_cast<std::uint32_t>(plan.hosts.size());
      slot.gpus.clear();
      for (std::uint32_t g = 0; g < node.gpus.value; ++g) slot.gpus.push_back(g);
      plan.hosts.push_back(std::move(host));
      tasks.push_back(std::move(slot));
      ++added;
    }
    next = end;
  }
  for (std::size_t k = 0; k < tasks.size(); ++k) tasks[k].id = static_cast<std::uint32_t>(k);
  plan.tasks = std::move(tasks);
  set_ranks(plan);
  return added;
}

}  // namespace slipway::core
