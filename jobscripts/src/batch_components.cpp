// Grouping a program's nodes into the components of a heterogeneous job.
#include "slipway/jobscripts/batch_components.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace slipway::jobscripts {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

std::string member_label(const core::NodeSpec& node) {
  const auto n = node.replicas->max;
  std::string label = *node.name;
  if (node.replicas->elastic()) {
    label += " x" + std::to_string(node.replicas->min) + ":" + std::to_string(n);
  } else if (n != 1) {
    label += " x" + std::to_string(n);
  }
  return label;
}

Component placement_of(const core::NodeSpec& node) {
  Component c;
  c.partition = *node.partition;
  c.constraint = *node.constraint;
  c.account = *node.account;
  c.qos = *node.qos;
  return c;
}

using ShapeKey = std::tuple<std::string, std::string, std::string, std::string, std::uint32_t,
                            std::uint32_t, std::uint64_t>;

}  // namespace

std::vector<Component> plan_components(const core::Program& program) {
  std::vector<Component> components;
  std::map<ShapeKey, std::size_t> by_shape;
  std::map<std::string, std::size_t> by_group;
  std::map<std::string, std::uint64_t> group_mem_mb;

  for (const auto& node : program.nodes) {
    const std::uint32_t replicas = node.replicas->max;
    const std::uint32_t cpus = std::max<std::uint32_t>(*node.cpus, 1);

    if (!node.colocate->empty()) {
      // Colocated nodes share hosts replica by replica (they have the same
      // replicas): one task per replica holding one replica of each member.
      auto [it, fresh] = by_group.try_emplace(*node.colocate, components.size());
      if (fresh) {
        Component c = placement_of(node);
        c.ntasks = replicas;
        c.cpus_per_task = 0;
        components.push_back(c);
      }
      Component& c = components[it->second];
      c.nodes.push_back(*node.name);
      c.members.push_back(member_label(node));
      std::uint64_t& mem_total = group_mem_mb[*node.colocate];
      mem_total += *node.mem_mb;
      c.cpus_per_task += cpus;
      c.gpus_per_task += *node.gpus;
      c.mem_per_cpu_mb = ceil_div(mem_total, c.cpus_per_task);
      continue;
    }

    Component shape = placement_of(node);
    shape.cpus_per_task = cpus;
    shape.gpus_per_task = *node.gpus;
    shape.mem_per_cpu_mb = ceil_div(*node.mem_mb, cpus);
    shape.nodes.push_back(*node.name);
    shape.members.push_back(member_label(node));
    shape.ntasks = replicas;

    if (*node.hosts > 0) {
      shape.hosts = *node.hosts;
      components.push_back(shape);
      continue;
    }
    const ShapeKey key{shape.partition,     shape.constraint,    shape.account,
                       shape.qos,           shape.cpus_per_task, shape.gpus_per_task,
                       shape.mem_per_cpu_mb};
    auto [it, fresh] = by_shape.try_emplace(key, components.size());
    if (fresh) {
      components.push_back(shape);
    } else {
      Component& c = components[it->second];
      c.nodes.push_back(*node.name);
      c.members.push_back(shape.members.front());
      c.ntasks += replicas;
    }
  }
  return components;
}

std::uint32_t program_time_minutes(const core::Program& program) {
  std::uint32_t longest = 0;
  for (const auto& node : program.nodes) {
    longest = std::max(longest, *node.time_minutes);
  }
  return longest;
}

}  // namespace slipway::jobscripts
