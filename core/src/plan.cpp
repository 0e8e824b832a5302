// Lookups on a Plan, and task names taken apart (plan.hpp).
#include "slipway/core/plan.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <stdexcept>

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

std::uint32_t Plan::busiest_host_tasks() const {
  std::vector<std::uint32_t> per_host(hosts.size(), 0);
  std::uint32_t most = 0;
  for (const Task& task : tasks) {
    if (task.host < per_host.size()) most = std::max(most, ++per_host[task.host]);
  }
  return most;
}

void set_ranks(Plan& plan) {
  std::map<std::string, std::vector<Task*>> by_node;  // tasks already in replica order
  for (Task& t : plan.tasks) by_node[t.node].push_back(&t);
  for (auto& [node, tasks] : by_node) {
    std::map<std::uint32_t, std::uint32_t> per_host;  // host -> tasks so far
    for (Task* t : tasks) t->local_rank = per_host[t->host]++;
    std::map<std::uint32_t, std::uint32_t> group_rank;
    for (const auto& [host, n] : per_host) group_rank.emplace(host, static_cast<std::uint32_t>(group_rank.size()));
    for (Task* t : tasks) {
      t->local_world_size = per_host[t->host];
      t->group_rank = group_rank[t->host];
      t->group_world_size = static_cast<std::uint32_t>(per_host.size());
    }
  }
}

std::optional<TaskName> parse_task_name(std::string_view name) {
  const auto dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == name.size()) return std::nullopt;
  std::uint32_t replica = 0;
  const char* first = name.data() + dot + 1;
  const char* last = name.data() + name.size();
  auto [end, ec] = std::from_chars(first, last, replica);
  if (ec != std::errc() || end != last) return std::nullopt;
  return TaskName{std::string(name.substr(0, dot)), replica};
}

}  // namespace slipway::core
