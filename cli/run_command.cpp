// `slipway run FILE`: run a program on this machine (the local launcher).
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "commands.hpp"
#include "program_loading.hpp"
#include "launch_report.hpp"
#include "option_checks.hpp"
#include "program_paths.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/launch/launcher_guard.hpp"
#include "slipway/launch/local_launcher.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/run_history.hpp"

namespace slipway::cli {
namespace {

// Inside a task of `program` (its SLIPWAY_PROGRAM and SLIPWAY_TOKEN are
// set, the first naming it), a run would start the program again, whose
// tasks could do the same without end: refused, with what to do, unless
// --nested asks for it.
bool refuse_nested_run(const core::Program& program) {
  const char* outer = std::getenv(core::env::kProgram);
  const char* token = std::getenv(core::env::kToken);
  if (outer == nullptr || token == nullptr || *token == '\0' || *program.name != outer) return false;
  const char* node = std::getenv(core::env::kNode);
  std::fprintf(stderr,
               "slipway run: refused: this is a task (%s) of program '%s', and running '%s' here would "
               "start the program again from inside itself, whose tasks could do the same without end. "
               "A Python program's sw.launch() in its own task runs that task's node instead; to start a "
               "nested copy on purpose, pass --nested\n",
               node != nullptr ? node : "?", outer, program.name->c_str());
  return true;
}

// The run directory `slipway run --resume` resumes: `which` (a run's name
// or directory), else the newest run of `program`; one that still runs is
// refused. Says why on stderr when there is none.
std::optional<std::string> run_to_resume(const std::string& run_root, const std::string& program,
                                         const std::string& which) {
  const std::string root = run_root.empty() ? launch::default_run_root() : run_root;
  std::string error;
  const auto found = launch::find_run_directory(root, which.empty() ? program : which, &error);
  if (!found) {
    std::fprintf(stderr, "slipway run: --resume: %s\n", error.c_str());
    return std::nullopt;
  }
  const launch::RunRecord record = launch::read_run(*found);
  if (record.state == launch::RunState::running) {
    std::fprintf(stderr, "slipway run: --resume: run %s still runs (launcher pid %ld): stop it first "
                         "(`slipway stop %s`)\n", found->c_str(), record.launcher_pid, found->c_str());
    return std::nullopt;
  }
  if (record.program != program) {
    std::fprintf(stderr, "slipway run: --resume: run %s is of program '%s', not '%s'\n", found->c_str(),
                 record.program.c_str(), program.c_str());
    return std::nullopt;
  }
  return found;
}

}  // namespace

void register_run(CLI::App& app, CommandContext& ctx) {
  auto options = std::make_shared<launch::LocalRunOptions>();
  auto allocation = std::make_shared<AllocationArgs>();
  auto grace_s = std::make_shared<double>(10.0);
  auto wire_s = std::make_shared<double>(300.0);
  auto notice_s = std::make_shared<double>(10.0);
  auto resume = std::make_shared<bool>(false);
  auto resume_which = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("run", "Run a program on this machine (no Slurm needed)");
  cmd->add_option("FILE", options->topology_path, "Topology file (TOML; - for standard input)")->required();
  auto* resume_flag = cmd->add_flag("--resume", *resume,
                                    "Resume the newest run of FILE's program (stopped or killed) in its run\n"
                                    "directory, instead of starting a new run (docs/resume.md)");
  cmd->add_option("--run", *resume_which, "With --resume: the run to resume (a run's name or directory)")
      ->type_name("RUN")
      ->needs(resume_flag);
  add_allocation_options(cmd, *allocation);
  cmd->add_option("--run-root", options->run_root,
                  "Where run directories go (default $SLIPWAY_RUN_ROOT or ~/.slipway/runs)");
  cmd->add_option("--grace", *grace_s,
                  "Seconds between SIGTERM and SIGKILL when stopping tasks (default 10)")
      ->type_name("SECONDS")
      ->check(seconds_between(0, 86400, false));
  add_notice_window_option(cmd, *notice_s);
  add_metrics_option(cmd, options->metrics);
  cmd->add_option("--wire-timeout", *wire_s,
                  "Seconds a task waits for the addresses of the nodes it handles (default 300)")
      ->type_name("SECONDS")
      ->check(seconds_between(0, 86400, true));
  auto nested = std::make_shared<bool>(false);
  cmd->add_flag("--nested", *nested,
                "Allow running the program from inside one of its own tasks (refused by default: a "
                "program that starts itself from its tasks would do so without end)");
  cmd->footer(
      "Output lines are prefixed with NODE.REPLICA; each task's output is also kept in\n"
      "RUN_DIR/logs/NODE.REPLICA.log (`slipway logs`). Past runs: `slipway runs`.\n"
      "SIGTERM, SIGINT, SIGUSR1 and SIGUSR2 first give every task a checkpoint notice\n"
      "(docs/resume.md); a second signal kills every task at once.\n"
      "Exit status: 0 when every non-daemon task succeeded, 1 when a task failed beyond\n"
      "its max_retries (or --resume found no run to resume), 2 for an invalid topology or\n"
      "option, 128+N when stopped by signal N.");
  cmd->callback([&ctx, options, allocation, grace_s, wire_s, notice_s, nested, resume, resume_which] {
    const auto local = allocation_options(*allocation, "run");
    if (!local) {
      ctx.exit_code = 2;
      return;
    }
    options->allocation = *local;
    options->grace = std::chrono::milliseconds(static_cast<long long>(*grace_s * 1000));
    options->notice_window = std::chrono::milliseconds(static_cast<long long>(*notice_s * 1000));
    options->wire_timeout = std::chrono::milliseconds(static_cast<long long>(*wire_s * 1000));
    options->exec_path = sibling_program("slipway-exec");
    // Loading, the run and the report all happen in the guarded launcher
    // process (launcher_guard.hpp); its exit status comes back here.
    ctx.exit_code = launch::run_guarded([&options = *options, nested = *nested, resume = *resume,
                                         &which = *resume_which] {
      auto program = load_program(options.topology_path);
      if (!program) return 2;
      if (!nested && refuse_nested_run(*program)) return 2;
      if (resume) {
        auto run = run_to_resume(options.run_root, *program->name, which);
        if (!run) return 1;
        options.resume_run = *run;
      }
      return report_outcome(launch::run_local(options, *program));
    });
  });
}

}  // namespace slipway::cli
