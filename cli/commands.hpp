// Registration of the `slipway` subcommands. Each subcommand lives in its
// own file (cli/<name>_command.cpp) and adds itself to the CLI11 app here.
//
// Contract: a register_* function adds exactly one subcommand to `app` and
// arranges for its callback to store the command's exit status in
// `ctx.exit_code`. Exit statuses: 0 success, 1 runtime failure, 2 invalid
// input (bad topology, bad usage).
#pragma once

#include <CLI/CLI.hpp>

namespace slipway::cli {

struct CommandContext {
  int exit_code = 0;
};

void register_validate(CLI::App& app, CommandContext& ctx);
void register_graph(CLI::App& app, CommandContext& ctx);
void register_plan(CLI::App& app, CommandContext& ctx);
void register_sbatch(CLI::App& app, CommandContext& ctx);
void register_rendezvous(CLI::App& app, CommandContext& ctx);
void register_run(CLI::App& app, CommandContext& ctx);
void register_launch(CLI::App& app, CommandContext& ctx);
void register_status(CLI::App& app, CommandContext& ctx);
void register_stop(CLI::App& app, CommandContext& ctx);
void register_checkpoint(CLI::App& app, CommandContext& ctx);
void register_scale(CLI::App& app, CommandContext& ctx);
void register_keeper(CLI::App& app, CommandContext& ctx);
void register_runs(CLI::App& app, CommandContext& ctx);
void register_logs(CLI::App& app, CommandContext& ctx);
void register_events(CLI::App& app, CommandContext& ctx);
void register_top(CLI::App& app, CommandContext& ctx);
void register_doctor(CLI::App& app, CommandContext& ctx);

}  // namespace slipway::cli
