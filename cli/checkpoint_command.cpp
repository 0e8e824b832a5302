// `slipway checkpoint [PROGRAM]`: ask a running program for a checkpoint
// notice, without a stop (docs/resume.md).
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "option_checks.hpp"
#include "running_program.hpp"

#include "slipway/core/checkpoint_notice.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/client.hpp"

namespace slipway::cli {

void register_checkpoint(CLI::App& app, CommandContext& ctx) {
  auto which = std::make_shared<std::string>();
  auto run_root = std::make_shared<std::string>();
  auto reason = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("checkpoint",
                                 "Ask every task of a running program to save its state now (no stop)");
  cmd->add_option("PROGRAM", *which,
                  "Program name or run directory (default: inside a task, its program; else the newest run)");
  cmd->add_option("--reason", *reason, "Why, for the notice and the launcher's log");
  add_run_root_option(cmd, *run_root);
  cmd->footer("The launcher publishes a checkpoint notice (the rendezvous key checkpoint/notice):\n"
              "every task finds it in $SLIPWAY_NOTICE_FILE, Python's sw.on_checkpoint() handlers run,\n"
              "nodes with notice_signal get that signal, replay shards write a checkpoint. The program\n"
              "goes on. Exit status: 0 asked, 1 no running program reached.");
  cmd->callback([&ctx, which, run_root, reason] {
    const std::string who = requester("checkpoint");
    std::string why = "checkpoint requested by " + who + (reason->empty() ? "" : ": " + *reason);
    if (why.size() > core::kMaxReasonBytes) why.resize(core::kMaxReasonBytes);
    try {
      auto client = connect_to_program(*which, *run_root);
      client->put(std::string(core::keys::kCheckpointRequest), why, rendezvous::Scope::program);
      ctx.exit_code = 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "slipway checkpoint: %s\n", e.what());
      ctx.exit_code = 1;
    }
  });
}

}  // namespace slipway::cli
