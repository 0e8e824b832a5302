// `slipway launch FILE`: run a program as Slurm job steps (the controller);
// what `srun --program=FILE` hands over to.
#include <fcntl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "commands.hpp"
#include "program_loading.hpp"
#include "launch_report.hpp"
#include "option_checks.hpp"
#include "program_paths.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/base/write_all.hpp"
#include "slipway/launch/slurm_controller.hpp"

namespace slipway::cli {
namespace {

// The exit status, for the slipway that ran this one under salloc (salloc
// exits 0 when its command is killed: no verdict then means a failure).
void write_verdict(const std::string& path, int code) {
  base::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC));
  if (!fd || !base::write_all(fd.get(), std::to_string(code) + "\n")) {
    std::fprintf(stderr, "slipway: cannot write the exit status to %s: %s\n", path.c_str(),
                 std::strerror(errno));
  }
}

}  // namespace

void register_launch(CLI::App& app, CommandContext& ctx) {
  auto options = std::make_shared<launch::SlurmLaunchOptions>();
  auto grace_s = std::make_shared<double>(10.0);
  auto wire_s = std::make_shared<double>(300.0);
  auto notice_s = std::make_shared<double>(10.0);
  auto* cmd = app.add_subcommand(
      "launch", "Run a program as job steps of a Slurm allocation (obtains one with salloc if needed)");
  cmd->add_option("FILE", options->topology_path, "Topology file (TOML)")->required()->check(reread_file("launch"));
  cmd->add_option("--srun-arg", options->srun_args,
                  "An srun argument of the user's (repeatable; the SPANK plugin passes them); outside\n"
                  "an allocation they are given to salloc")
      ->allow_extra_args(false);
  cmd->add_option("--run-root", options->run_root,
                  "Where run directories go (default $SLIPWAY_RUN_ROOT or ~/.slipway/runs; must be\n"
                  "visible to every host)");
  cmd->add_option("--grace", *grace_s, "Seconds between SIGTERM and SIGKILL when stopping tasks (default 10)")
      ->type_name("SECONDS")
      ->check(seconds_between(0, 86400, false));
  add_notice_window_option(cmd, *notice_s);
  add_metrics_option(cmd, options->metrics);
  cmd->add_option("--wire-timeout", *wire_s,
                  "Seconds a task waits for the addresses of the nodes it handles (default 300)")
      ->type_name("SECONDS")
      ->check(seconds_between(0, 86400, true));
  auto verdict_file = std::make_shared<std::string>();
  cmd->add_option("--verdict-file", *verdict_file,
                  "Where to write the exit status at the end (the slipway that runs this one under salloc reads it)")
      ->group("");  // internal: not in --help
  cmd->footer(
      "Inside an allocation (salloc, sbatch) each task becomes a job step on the host the plan\n"
      "gives it; a failed task is resubmitted as a new step within max_retries, away from a host\n"
      "that was lost. A requeued job resumes the run of its first start (docs/resume.md):\n"
      "SIGTERM, SIGINT, SIGUSR1 and SIGUSR2 first give every task a checkpoint notice.\n"
      "Exit status as `slipway run`.");
  cmd->callback([&ctx, options, grace_s, wire_s, notice_s, verdict_file] {
    options->exec_path = sibling_program("slipway-exec");
    options->self_path = self_program();
    options->grace = std::chrono::milliseconds(static_cast<long long>(*grace_s * 1000));
    options->notice_window = std::chrono::milliseconds(static_cast<long long>(*notice_s * 1000));
    options->wire_timeout = std::chrono::milliseconds(static_cast<long long>(*wire_s * 1000));
    auto program = load_program(options->topology_path);
    if (!program) {
      ctx.exit_code = 2;
      return;
    }
    ctx.exit_code = report_outcome(launch::run_slurm(*options, *program));
    if (!verdict_file->empty()) write_verdict(*verdict_file, ctx.exit_code);
  });
}

}  // namespace slipway::cli
