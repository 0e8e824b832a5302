// Loading a topology for a subcommand: every problem is printed on stderr as
// FILE:LINE:COL: message (docs/architecture.md, "Error model"); the caller then exits with status 2.
#pragma once

#include <optional>
#include <string>

#include "slipway/core/topology.hpp"

namespace slipway::cli {

// The valid program of the topology at `path` ("-": standard input), or
// nothing after printing its problems. Its replay nodes run the
// slipway-replay next to this `slipway` (sibling_program).
std::optional<core::Program> load_program(const std::string& path);

}  // namespace slipway::cli
