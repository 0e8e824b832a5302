// ElasticControl: elastic nodes between the rendezvous and the launcher's
// loop (see elastic_control.hpp).
#include "elastic_control.hpp"

#include <algorithm>

#include "slipway/core/contract.hpp"
#include "slipway/core/live_plan.hpp"
#include "slipway/rendezvous/printable.hpp"

namespace slipway::launch {
namespace {

std::vector<ElasticNodeSpec> specs_of(const core::Plan& plan) {
  std::vector<ElasticNodeSpec> specs;
  for (const core::NodeSpec& node : plan.program.nodes) {
    const core::ReplicaRange range = node.replicas.value;
    if (!range.elastic() || !node.colocate.value.empty()) continue;
    const core::ResolvedElastic settings = core::elastic_settings(plan.program, node);
    ElasticNodeSpec spec;
    spec.node = node.name.value;
    spec.min = range.min;
    spec.max = range.max;
    spec.slots = 0;
    spec.hosted = 0;
    for (const core::Task* task : plan.tasks_of(spec.node)) {
      ++spec.slots;
      if (!plan.host(*task).satellite) ++spec.hosted;
    }
    spec.world = forms_world(node.framework.value);
    spec.grow_manual = settings.grow_manual;
    spec.shrink_on_loss = settings.shrink_on_loss;
    spec.settle = std::chrono::milliseconds(settings.settle_ms);
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace

ElasticControl::ElasticControl(const core::Plan& plan, const std::vector<LaunchUnit>& units)
    : plan_(plan),
      units_(units),
      unit_of_task_(unit_of_each_task(units, plan.tasks.size())),
      nodes_(specs_of(plan)),
      live_plan_(std::make_shared<const core::Plan>(core::live_plan(plan, nodes_.live_sets()))) {}

std::vector<std::string> ElasticControl::live_arguments() const {
  std::vector<std::string> out;
  for (const auto& [node, live] : nodes_.live_sets()) {
    out.push_back("--live");
    out.push_back(core::format_live_set(node, live));
  }
  return out;
}

std::optional<std::string> ElasticControl::live_record(const std::string& node) const {
  const core::NodeSpec* spec = plan_.program.find_node(node);
  if (spec == nullptr || !nodes_.knows(node)) return std::nullopt;
  return core::format_live_record({spec->replicas.value.min, spec->replicas.value.max, nodes_.live(node)});
}

// A task writes the key and its value: both reach our output escaped
// (rendezvous::printable), so that neither can start a line of its own.
std::string ElasticControl::scale_request(const std::string& key, const std::string& value,
                                          Clock::time_point now) {
  const std::string node = rendezvous::printable(key.substr(core::keys::kScalePrefix.size()));
  // "COUNT[ WHO]"
  const std::size_t digits = value.find_first_not_of("0123456789");
  const std::string count_text = value.substr(0, digits);
  const std::string who = digits == std::string::npos || digits + 1 >= value.size()
                              ? std::string("a task")
                              : rendezvous::printable(value.substr(digits + 1, 128));
  if (count_text.empty() || count_text.size() > 9 || (digits != std::string::npos && value[digits] != ' ')) {
    return "ignored " + rendezvous::printable(key.substr(0, 192)) + " = '" +
           rendezvous::printable(value.substr(0, 64)) + "': not a count (write COUNT, or COUNT WHO)";
  }
  const std::int64_t count = std::stoll(count_text);
  if (!nodes_.knows(node)) {
    const core::NodeSpec* spec = plan_.program.find_node(node);
    if (spec == nullptr) return who + " asked to scale " + node + ": the program has no such node";
    if (!spec->replicas.value.elastic()) {
      return who + " asked to scale " + node + ": it is not elastic (replicas = " +
             std::to_string(spec->replicas.value.min) + "); give it replicas = \"MIN:MAX\"";
    }
    return who + " asked to scale " + node + ": it is colocated ('" + spec->colocate.value +
           "'), and colocated nodes do not resize yet";
  }
  return nodes_.request(node, count, who, now);
}

std::size_t ElasticControl::unit_of(const std::string& node, std::uint32_t replica) const {
  const core::Task* task = plan_.find_task(node, replica);
  if (task == nullptr) return units_.size();
  return unit_of_task_[static_cast<std::size_t>(task - plan_.tasks.data())];
}

std::optional<ElasticControl::ReplicaOf> ElasticControl::replica_of(std::size_t unit) const {
  if (units_[unit].tasks.size() != 1) return std::nullopt;
  const core::Task& task = plan_.tasks[units_[unit].tasks.front()];
  if (!nodes_.knows(task.node)) return std::nullopt;
  return ReplicaOf{task.node, task.replica};
}

bool ElasticControl::starts_idle(std::size_t unit) const {
  const auto replica = replica_of(unit);
  if (!replica) return false;
  const auto& live = nodes_.live(replica->node);
  return !std::binary_search(live.begin(), live.end(), replica->replica);
}

std::string ElasticControl::cannot_shrink(std::size_t unit) const {
  const core::Task& task = plan_.tasks[units_[unit].tasks.front()];
  if (!nodes_.knows(task.node)) return {};
  const auto& range = plan_.program.find_node(task.node)->replicas.value;
  return task.node + " runs its minimum of " + std::to_string(nodes_.live(task.node).size()) +
         " replicas (replicas = \"" + std::to_string(range.min) + ":" + std::to_string(range.max) +
         "\") and cannot shrink";
}

ElasticControl::Steps ElasticControl::resize_steps(const Resize& r, std::optional<std::size_t> ended) {
  live_plan_ = std::make_shared<const core::Plan>(core::live_plan(plan_, nodes_.live_sets()));
  Steps steps;
  std::string starting, stopping;
  for (std::uint32_t replica : r.live) {
    if (std::binary_search(r.from.begin(), r.from.end(), replica)) continue;
    steps.start.push_back(unit_of(r.node, replica));
    starting += (starting.empty() ? "" : ", ") + units_[steps.start.back()].name;
  }
  for (std::uint32_t replica : r.from) {
    if (std::binary_search(r.live.begin(), r.live.end(), replica)) continue;
    steps.retire.push_back(unit_of(r.node, replica));
    if (steps.retire.back() != ended) stopping += (stopping.empty() ? "" : ", ") + units_[steps.retire.back()].name;
  }
  const core::NodeSpec* spec = plan_.program.find_node(r.node);
  if (spec == nullptr || !forms_world(spec->framework.value)) {
    steps.line = r.cause + (starting.empty() ? "" : "; starting " + starting) +
                 (stopping.empty() ? "" : "; stopping " + stopping);
  }
  steps.event_cause =
      r.cause + " (" + std::to_string(r.from.size()) + " -> " + std::to_string(r.live.size()) + " replicas)";
  return steps;
}

std::size_t ElasticControl::grant_satellite(const std::string& node, const std::string& why, Clock::time_point now) {
  return unit_of(node, nodes_.grant(node, why, now));
}

std::optional<std::size_t> ElasticControl::release_satellite(const std::string& node,
                                                             const std::function<bool(std::size_t)>& busy) {
  const auto slot = nodes_.releasable(node);
  if (!slot) return std::nullopt;
  const std::size_t unit = unit_of(node, *slot);
  if (busy(unit)) return std::nullopt;
  nodes_.release(node);
  return unit;
}

std::string ElasticControl::abandon_satellites(const std::string& node, const std::string& why) {
  const std::uint32_t had = nodes_.settle_for_hosted(node);
  return node + " stays at " + std::to_string(nodes_.live(node).size()) + " of the " + std::to_string(had) +
         " replicas asked for: " + why;
}

}  // namespace slipway::launch
