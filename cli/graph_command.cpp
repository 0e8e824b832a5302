// `slipway graph FILE [-o OUT]`: the program graph of a topology as Graphviz
// DOT (core/program_dot.hpp), for a program that is not running; the live
// page (observe/page/) draws the same graph for one that is.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "program_loading.hpp"

#include "slipway/base/replace_file.hpp"
#include "slipway/core/program_dot.hpp"

namespace slipway::cli {
namespace {

int run_graph(const std::string& path, const std::string& out) {
  const auto loaded = load_program(path);
  if (!loaded) return 2;
  const std::string dot = core::program_dot(*loaded);
  if (out.empty() || out == "-") {
    std::fwrite(dot.data(), 1, dot.size(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
  }
  if (std::string error = base::replace_file(out, dot); !error.empty()) {
    std::fprintf(stderr, "slipway graph: %s; choose a writable path with -o\n", error.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

void register_graph(CLI::App& app, CommandContext& ctx) {
  auto path = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("graph", "Write a topology's program graph as Graphviz DOT");
  cmd->add_option("FILE", *path, "Topology file (TOML; - for standard input); see docs/topology.md")->required();
  cmd->add_option("-o,--output", *out, "Write the DOT to this file instead of standard output");
  cmd->footer(
      "One box per node (name, type, replicas; MIN:MAX when elastic), an arrow per handle,\n"
      "colocate groups as clusters. Draw it with: slipway graph FILE | dot -Tsvg -o graph.svg\n"
      "A topology with problems is reported as `slipway validate` reports it.\n"
      "Exit status: 0 written, 1 output not writable, 2 invalid or unreadable topology.");
  cmd->callback([path, out, &ctx] { ctx.exit_code = run_graph(*path, *out); });
}

}  // namespace slipway::cli
