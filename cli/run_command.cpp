// `slipway run FILE`: run a program on this machine (the local launcher).
#include "commands.hpp"
#include "program_paths.hpp"
#include "slipway/launch/local_launcher.hpp"

namespace slipway::cli {

void register_run(CLI::App& app, CommandContext& ctx) {
  auto options = std::make_shared<launch::LocalRunOptions>();
  auto grace_s = std::make_shared<double>(10.0);
  auto wire_s = std::make_shared<double>(300.0);
  auto* cmd = app.add_subcommand("run", "Run a program on this machine (no Slurm needed)");
  cmd->add_option("FILE", options->topology_path, "Topology file (TOML)")->required();
  cmd->add_option("--hosts", options->allocation.hosts,
                  "Pretend this machine is N hosts when planning (default 1)");
  cmd->add_option("--cpus-per-host", options->allocation.cpus_per_host,
                  "CPUs to plan with per host (default: the CPUs this process may use)");
  cmd->add_option("--gpus-per-host", options->allocation.gpus_per_host,
                  "GPUs to plan with per host (default 0)");
  cmd->add_option("--mem-per-host", options->allocation.mem_per_host_mb,
                  "Memory per host in MiB (default: this machine's memory)");
  cmd->add_option("--run-root", options->run_root,
                  "Where run directories go (default $SLIPWAY_RUN_ROOT or ~/.slipway/runs)");
  cmd->add_option("--grace", *grace_s,
                  "Seconds between SIGTERM and SIGKILL when stopping tasks (default 10)");
  cmd->add_option("--wire-timeout", *wire_s,
                  "Seconds a task waits for the addresses of the nodes it handles (default 300)");
  cmd->footer(
      "Output lines are prefixed with NODE.REPLICA; each task's output is also kept in\n"
      "RUN_DIR/logs/NODE.REPLICA.log. Exit status: 0 when every non-daemon task succeeded,\n"
      "1 when a task failed beyond its max_retries, 2 for an invalid topology,\n"
      "128+N when stopped by signal N.");
  cmd->callback([&ctx, options, grace_s, wire_s] {
    options->grace = std::chrono::milliseconds(static_cast<long long>(*grace_s * 1000));
    options->wire_timeout = std::chrono::milliseconds(static_cast<long long>(*wire_s * 1000));
    options->exec_path = sibling_program("slipway-exec");
    ctx.exit_code = launch::run_local(*options);
  });
}

}  // namespace slipway::cli
