// What `slipway run` and `slipway launch` share around a launcher: turning a
// launch::LaunchOutcome into lines on stderr and the command's exit status
// (loading the topology: program_loading.hpp).
//
// Contract: report_outcome writes each problem of an outcome that did not run as
// "slipway: message" and its details indented, and returns the exit status:
// the program's (0, 1, 128 + N) when it ran, 2 when it was invalid (nothing
// started), 1 when the launcher failed.
#pragma once

#include "slipway/launch/launch_outcome.hpp"

namespace slipway::cli {

int report_outcome(const launch::LaunchOutcome& outcome);

}  // namespace slipway::cli
