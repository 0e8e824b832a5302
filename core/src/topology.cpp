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

}  // namespace slipway::core
