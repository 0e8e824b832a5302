// Shared, checked options (see option_checks.hpp).
#include "option_checks.hpp"

#include "slipway/observe/http_server.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "slipway/core/quantities.hpp"

namespace slipway::cli {
namespace {

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

void add_allocation_options(CLI::App* cmd, AllocationArgs& args) {
  cmd->add_option("--hosts", args.hosts, "Plan onto N hosts like this one (default 1: this machine)")
      ->type_name("N")
      ->check(CLI::Range(1u, 100000u));
  cmd->add_option("--cpus-per-host", args.cpus_per_host,
                  "CPUs per host (default: the CPUs this process may run on, raised to what\n"
                  "the program asks for: this machine is then oversubscribed)")
      ->type_name("C")
      ->check(CLI::Range(1u, 65536u));
  cmd->add_option("--gpus-per-host", args.gpus_per_host, "GPUs per host (default 0)")
      ->type_name("G")
      ->check(CLI::Range(0u, 1024u));
  cmd->add_option("--mem-per-host", args.mem_per_host,
                  "Memory per host, e.g. 64G or 512M; a bare number is MiB (default: this\n"
                  "machine's total memory)")
      ->type_name("M");
}

std::optional<core::LocalAllocationOptions> allocation_options(const AllocationArgs& args,
                                                               const char* command) {
  core::LocalAllocationOptions out{args.hosts, args.cpus_per_host, args.gpus_per_host, std::nullopt};
  if (args.mem_per_host) {
    std::string reason;
    out.mem_per_host_mb = core::parse_memory_mb(*args.mem_per_host, reason);
    if (!out.mem_per_host_mb) {
      std::fprintf(stderr, "slipway %s: --mem-per-host \"%s\" %s\n", command, args.mem_per_host->c_str(),
                   reason.c_str());
      return std::nullopt;
    }
  }
  return out;
}

void add_notice_window_option(CLI::App* cmd, double& seconds) {
  cmd->add_option("--notice-window", seconds,
                  "Seconds tasks that hear checkpoint notices (notice_signal, replay nodes) may run\n"
                  "after the notice a stopping signal brings, to save their state (default 10; 0: no\n"
                  "notice, stop at once)")
      ->type_name("SECONDS")
      ->check(seconds_between(0, 86400, false));
}

void add_run_root_option(CLI::App* cmd, std::string& run_root) {
  cmd->add_option("--run-root", run_root, "Where run directories are (default $SLIPWAY_RUN_ROOT or ~/.slipway/runs)")
      ->type_name("DIR");
}

void add_metrics_option(CLI::App* cmd, std::string& address) {
  cmd->add_option("--metrics", address,
                  "Where the program's page and Prometheus metrics are served: [HOST:]PORT (port 0: any\n"
                  "free one), or none (default: [program] metrics_port, else 127.0.0.1, any free port).\n"
                  "Off loopback every request needs the view token (docs/observe.md)")
      ->type_name("ADDR")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (value == "none") return {};
            try {
              observe::parse_listen_address(value);
            } catch (const std::invalid_argument& e) {
              return e.what();
            }
            return {};
          },
          "ADDR"));
}

CLI::Validator seconds_between(double min, double max, bool min_exclusive) {
  const std::string range = (min_exclusive ? "more than " : "from ") + number_text(min) + " " +
                            (min_exclusive ? "and at most " : "to ") + number_text(max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        const bool parsed = !text.empty() && end != nullptr && *end == '\0';
        const bool in_range = parsed && std::isfinite(value) &&
                              (min_exclusive ? value > min : value >= min) && value <= max;
        if (in_range) return {};
        return "must be a number of seconds " + range + " (got '" + text + "')";
      },
      std::string(min_exclusive ? "in (" : "in [") + number_text(min) + " - " + number_text(max) + "]");
}

CLI::Validator reread_file(const char* command) {
  const std::string what = command;
  return CLI::Validator(
      [what](std::string& text) -> std::string {
        if (text != "-") return {};
        return "slipway " + what + " reads the topology again later, so it cannot come from standard "
               "input; write it to a file and give that file";
      },
      "");
}

}  // namespace slipway::cli
