// Lookups on the program model (topology.hpp).
#include <algorithm>

#include "slipway/core/topology.hpp"

namespace slipway::core {

bool NodeSpec::handles_node(std::string_view other) const {
  return std::any_of(handles.begin(), handles.end(),
                     [&](const Located<std::string>& h) { return h.value == other; });
}

const NodeSpec* Program::find_node(std::string_view node_name) const {
  for (const NodeSpec& node : nodes) {
    if (node.name.value == node_name) return &node;
  }
  return nullptr;
}

ResolvedElastic elastic_settings(const Program& program, const NodeSpec& node) {
  ResolvedElastic out;
  const ElasticSettings& own = node.elastic.value;
  const ElasticSettings& all = program.elastic.value;
  out.grow_manual = own.grow_manual.value_or(all.grow_manual.value_or(out.grow_manual));
  out.settle_ms = own.settle_ms.value_or(all.settle_ms.value_or(out.settle_ms));
  out.shrink_on_loss = own.shrink_on_loss.value_or(all.shrink_on_loss.value_or(out.shrink_on_loss));
  return out;
}

SatelliteSettings satellite_settings(const Program& program) {
  SatelliteSettings out;
  const ElasticSettings& all = program.elastic.value;
  out.jobs = all.satellites.value_or(out.jobs);
  out.wait_ms = all.satellite_wait_ms.value_or(out.wait_ms);
  return out;
}

}  // namespace slipway::core
