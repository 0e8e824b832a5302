// `slipway stop [PROGRAM]`: ask a running program to stop (lp.stop()).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "commands.hpp"
#include "option_checks.hpp"
#include "running_program.hpp"

#include "slipway/core/contract.hpp"

namespace slipway::cli {

void register_stop(CLI::App& app, CommandContext& ctx) {
  auto which = std::make_shared<std::string>();
  auto run_root = std::make_shared<std::string>();
  auto reason = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("stop", "Stop a running program (from a task: its own program)");
  cmd->add_option("PROGRAM", *which,
                  "Program name or run directory (default: inside a task, its program; else the newest run)");
  cmd->add_option("--reason", *reason, "Why, for the launcher's log");
  add_run_root_option(cmd, *run_root);
  cmd->footer("Every task gets SIGTERM, then SIGKILL after the launcher's grace period; the\n"
              "launcher then exits 0 unless a task had already failed.");
  cmd->callback([&ctx, which, run_root, reason] {
    const std::string who = requester("stop");
    try {
      auto client = connect_to_program(*which, *run_root);
      client->request_stop("stop requested by " + who + (reason->empty() ? "" : ": " + *reason));
      ctx.exit_code = 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "slipway stop: %s\n", e.what());
      ctx.exit_code = 1;
    }
  });
}

}  // namespace slipway::cli
