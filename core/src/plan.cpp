// Lookups on a Plan (plan.hpp).
#include <stdexcept>

#include "slipway/core/plan.hpp"

namespace slipway::core {

const NodeSpec& Plan::node(const Task& task) const {
  const NodeSpec* spec = program.find_node(task.node);
  if (spec == nullptr) throw std::out_of_range("plan has no node '" + task.node + "'");
  return *spec;
}

const Host& Plan::host(const Task& task) const {
  if (task.host >= hosts.size()) {
    throw std::out_of_range("task " + task.name() + " names host " + std::to_string(task.host) +
                            " of a plan with " + std::to_string(hosts.size()));
  }
  return hosts[task.host];
}

std::vector<const Task*> Plan::tasks_of(std::string_view node_name) const {
  std::vector<const Task*> out;
  for (const Task& task : tasks) {
    if (task.node == node_name) out.push_back(&task);
  }
  return out;
}

const Task* Plan::find_task(std::string_view node_name, std::uint32_t replica) const {
  for (const Task& task : tasks) {
    if (task.node == node_name && task.replica == replica) return &task;
  }
  return nullptr;
}

}  // namespace slipway::core
