// What `slipway run` and `slipway launch` share around a launcher: loading
// the topology, and turning a launch::LaunchOutcome into lines on stderr and
// the command's exit status.
//
// Contract: load_or_report writes each problem as FILE:LINE:COL: message
// on stderr and returns nothing when the topology is invalid.
// report_outcome writes each problem of an outcome that did not run as
// "slipway: message" and its details indented, and returns the exit status:
// the program's (0, 1, 128 + N) when it ran, 2 when it was invalid (nothing
// started), 1 when the launcher failed.
#pragma once

#include <optional>
#include <string>

#include "slipway/core/topology.hpp"
#include "slipway/launch/launch_outcome.hpp"

namespace slipway::cli {

std::optional<core::Program> load_or_report(const std::string& path);

int report_outcome(const launch::LaunchOutcome& outcome);

}  // namespace slipway::cli
