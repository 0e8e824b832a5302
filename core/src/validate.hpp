// The validation rules across keys and nodes of a parsed program (names,
// handles, ports, env, colocate groups, frameworks); per-value rules are
// checked while reading (node_table.cpp).
#pragma once

#include "reader.hpp"
#include "slipway/core/topology.hpp"

namespace slipway::core {

// Reports every rule the program breaks through `reader`.
void validate_program(Reader& reader, const Program& program);

}  // namespace slipway::core
