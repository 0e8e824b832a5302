// The validation rules across keys and nodes of a parsed program (names,
// handles, ports, env, colocate groups, frameworks); per-value rules are
// checked while reading (node_table.cpp).
#pragma once

#include "reader.hpp"
#include "slipway/core/topology.hpp"

namespace slipway::core {

// Reports every rule the program breaks through `reader`.
void validate_program(Reader& reader, const Program& program);

// Reports every rule of replay nodes `node` breaks, and a replay node's keys
// on a node of another type (validate_replay.cpp).
void check_replay(Reader& reader, const NodeSpec& node);

// Reports every limit the program exceeds at its maximum replicas that would
// keep it from ever starting: tasks per program, the plan file's size, and
// each task's arguments and environment at exec (validate_scale.cpp).
void check_scale(Reader& reader, const Program& program);

}  // namespace slipway::core
