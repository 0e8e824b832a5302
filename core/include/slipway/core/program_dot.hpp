// The program graph of a topology as Graphviz DOT (`slipway graph FILE`):
// the picture the live page draws (observe/page/), for a program that is
// not running.
//
// Contract: program_dot is pure (no I/O) and deterministic: one box per
// node in file order, labelled with its name, type and replicas ("2" or
// "MIN:MAX" when elastic); one edge A -> B for each `handles = ["B"]` of A,
// in file order; the nodes of one colocate group inside one cluster
// subgraph, written where the group's first node appears. Every name is
// written as a DOT quoted string (dot_quoted), so any text is safe.
#pragma once

#include <string>
#include <string_view>

#include "slipway/core/topology.hpp"

namespace slipway::core {

// `text` as a DOT double-quoted string: '"' and '\' are escaped, and a line
// break becomes "\n" (which Graphviz draws as a centred line break in a
// label); other control characters become spaces.
std::string dot_quoted(std::string_view text);

// The whole `digraph` of `program`, ending in a newline.
std::string program_dot(const Program& program);

}  // namespace slipway::core
