// load_or_report and report_outcome (launch_report.hpp).
#include "launch_report.hpp"

#include "slipway/exec/terminal_stream.hpp"

namespace slipway::cli {

std::optional<core::Program> load_or_report(const std::string& path) {
  auto topology = core::load_topology(path);
  for (const auto& d : topology.diagnostics) {
    exec::terminal_stderr().write(core::format_diagnostic(d) + "\n");
  }
  return std::move(topology.program);
}

int report_outcome(const launch::LaunchOutcome& outcome) {
  for (const auto& problem : outcome.problems) {
    std::string lines = "slipway: " + problem.message + "\n";
    for (const auto& detail : problem.details) lines += "  " + detail + "\n";
    exec::terminal_stderr().write(lines);
  }
  switch (outcome.kind) {
    case launch::LaunchOutcome::Kind::Ran: return outcome.program_status;
    case launch::LaunchOutcome::Kind::Invalid: return 2;
    case launch::LaunchOutcome::Kind::Error: break;
  }
  return 1;
}

}  // namespace slipway::cli
