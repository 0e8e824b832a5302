// Options several commands share, each checked as it is parsed: the
// simulated hosts of `slipway plan` and `slipway run`, and the durations of
// `run` and `launch`. A value out of range is refused with the range.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "slipway/core/plan.hpp"

namespace slipway::cli {

// --hosts, --cpus-per-host, --gpus-per-host, --mem-per-host as typed.
struct AllocationArgs {
  std::optional<std::uint32_t> hosts;
  std::optional<std::uint32_t> cpus_per_host;
  std::optional<std::uint32_t> gpus_per_host;
  std::optional<std::string> mem_per_host;
};

// Adds the four options to `cmd`, storing into `args`.
void add_allocation_options(CLI::App* cmd, AllocationArgs& args);

// The LocalAllocationOptions `args` give, or nothing after saying on stderr
// ("slipway COMMAND: ...") why --mem-per-host is not a size.
std::optional<core::LocalAllocationOptions> allocation_options(const AllocationArgs& args,
                                                               const char* command);

// A validator for a finite number of seconds in [min, max] (or (min, max]
// when `min_exclusive`): refuses nan, inf and anything outside, naming the range.
CLI::Validator seconds_between(double min, double max, bool min_exclusive);

// --notice-window SECONDS of `run` and `launch` (docs/resume.md).
void add_notice_window_option(CLI::App* cmd, double& seconds);
// --run-root DIR of the commands that read runs (status, stop, events, ...).
void add_run_root_option(CLI::App* cmd, std::string& run_root);
// --metrics ADDR: the observe endpoint (docs/observe.md) of `run` and `launch`.
void add_metrics_option(CLI::App* cmd, std::string& address);

// A topology FILE argument that is read again later (sbatch, launch): "-"
// (standard input) is refused, with what to do instead.
CLI::Validator reread_file(const char* command);

}  // namespace slipway::cli
