// `slipway scale NODE COUNT [PROGRAM]`: ask a running program to resize an
// elastic node (the key scale/NODE; docs/elastic.md).
#include <cstdio>

#include "commands.hpp"
#include "option_checks.hpp"
#include "running_program.hpp"

#include "slipway/core/contract.hpp"
#include "slipway/core/live_plan.hpp"

namespace slipway::cli {

void register_scale(CLI::App& app, CommandContext& ctx) {
  auto node = std::make_shared<std::string>();
  auto count = std::make_shared<std::uint32_t>(0);
  auto which = std::make_shared<std::string>();
  auto run_root = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("scale", "Resize an elastic node of a running program");
  cmd->add_option("NODE", *node, "The elastic node (replicas = \"MIN:MAX\")")->required();
  cmd->add_option("COUNT", *count, "How many replicas it should run")->required()->check(CLI::Range(0, 100000));
  cmd->add_option("--program", *which,
                  "Program name or run directory (default: inside a task, its program; else the newest run)");
  add_run_root_option(cmd, *run_root);
  cmd->footer("COUNT is clamped to MIN..MAX (and to the replicas the plan placed). The\n"
              "launcher resizes the node once its settle window has passed: a torch node\n"
              "restarts its whole world as a new epoch at the new size; a none node starts or\n"
              "stops only the replicas that come or go. slipway status shows the live size.");
  cmd->callback([&ctx, node, count, which, run_root] {
    try {
      auto client = connect_to_program(*which, *run_root);
      const auto live = client->get(core::keys::live(*node));
      if (!live) {
        std::fprintf(stderr, "slipway scale: the program has no elastic node '%s' (only nodes with "
                     "replicas = \"MIN:MAX\" resize; slipway status lists them)\n", node->c_str());
        ctx.exit_code = 1;
        return;
      }
      const auto record = core::parse_live_record(*live, core::kReplicaIndexLimit);
      client->put(core::keys::scale(*node), std::to_string(*count) + " " + requester("scale"),
                  rendezvous::Scope::program);
      if (record) {
        std::printf("%s: %zu replicas now (replicas = \"%u:%u\"); asked for %u\n", node->c_str(),
                    record->replicas.size(), record->min, record->max, *count);
      } else {
        std::printf("%s: asked for %u\n", node->c_str(), *count);
      }
      ctx.exit_code = 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "slipway scale: %s\n", e.what());
      ctx.exit_code = 1;
    }
  });
}

}  // namespace slipway::cli
