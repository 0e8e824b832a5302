// `slipway validate FILE`: checks a topology and reports every problem as
// FILE:LINE:COL: message (exit 2), or one summary line (exit 0).
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "program_loading.hpp"

#include "slipway/core/environment.hpp"
#include "slipway/core/topology.hpp"

namespace slipway::cli {
namespace {

int run_validate(const std::string& path) {
  const auto loaded = load_program(path);
  if (!loaded) return 2;
  const core::Program& program = *loaded;
  std::uint64_t min_tasks = 0, max_tasks = 0;
  for (const auto& node : program.nodes) {
    min_tasks += node.replicas->min;
    max_tasks += node.replicas->max;
  }
  std::string tasks = std::to_string(min_tasks);
  if (max_tasks != min_tasks) tasks += " to " + std::to_string(max_tasks);
  std::printf("%s: valid (program %s, %zu node%s, %s task%s)\n", program.source_file.c_str(), program.name->c_str(),
              program.nodes.size(), program.nodes.size() == 1 ? "" : "s", tasks.c_str(),
              max_tasks == 1 ? "" : "s");
  for (const std::string& note : core::address_file_notes(program)) std::printf("note: %s\n", note.c_str());
  for (const auto& node : program.nodes) {
    if (*node.type != core::NodeType::replay) continue;
    std::string tables;
    for (const auto& table : node.replay.tables) {
      tables += (tables.empty() ? "" : ", ") + *table.name + " (" + std::string(core::to_string(*table.kind)) + ")";
    }
    const std::string& server = node.command->front();
    std::printf("replay node %s: %s%s, tables %s\n", node.name->c_str(), server.c_str(),
                server.find('/') == std::string::npos ? " (not next to slipway: looked up in PATH)" : "",
                tables.c_str());
  }
  return 0;
}

}  // namespace

void register_validate(CLI::App& app, CommandContext& ctx) {
  auto path = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("validate", "Check a topology file without planning or running it");
  cmd->add_option("FILE", *path, "Topology file (TOML; - for standard input); see docs/topology.md")->required();
  cmd->footer(
      "Every problem is reported, one per line on stderr, as FILE:LINE:COL: message.\n"
      "Exit status: 0 valid, 2 invalid or unreadable.");
  cmd->callback([path, &ctx] { ctx.exit_code = run_validate(*path); });
}

}  // namespace slipway::cli
