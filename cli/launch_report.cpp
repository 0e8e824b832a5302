// report_outcome (launch_report.hpp).
#include "launch_report.hpp"

#include "slipway/base/terminal_stream.hpp"

namespace slipway::cli {

int report_outcome(const launch::LaunchOutcome& outcome) {
  for (const auto& problem : outcome.problems) {
    std::string lines = "slipway: " + problem.message + "\n";
    for (const auto& detail : problem.details) lines += "  " + detail + "\n";
    base::terminal_stderr().write(lines);
  }
  switch (outcome.kind) {
    case launch::LaunchOutcome::Kind::Ran: return outcome.program_status;
    case launch::LaunchOutcome::Kind::Invalid: return 2;
    case launch::LaunchOutcome::Kind::Error: break;
  }
  return 1;
}

}  // namespace slipway::cli
