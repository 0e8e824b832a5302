// `slipway plan FILE`: the launch plan of a topology on an allocation (this
// machine, or --hosts/--cpus-per-host/... simulated hosts), as a table or as
// the plan JSON (docs/plan-json.md). Launches nothing.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "program_loading.hpp"
#include "option_checks.hpp"
#include "slipway/core/environment.hpp"
#include "slipway/core/plan_json.hpp"
#include "slipway/core/quantities.hpp"

namespace slipway::cli {
namespace {

struct PlanOptions {
  std::string path;
  bool json = false;
  AllocationArgs allocation;
};

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out.empty() ? "-" : out;
}

void print_table(const core::Plan& plan) {
  std::uint64_t cpus = 0, gpus = 0;
  for (const auto& h : plan.hosts) {
    cpus += h.cpus;
    gpus += h.gpus;
  }
  std::printf("program %s: %zu task%s on %zu host%s (%llu cpus, %llu gpus in all)\n",
              plan.program.name->c_str(), plan.tasks.size(), plan.tasks.size() == 1 ? "" : "s",
              plan.hosts.size(), plan.hosts.size() == 1 ? "" : "s",
              static_cast<unsigned long long>(cpus), static_cast<unsigned long long>(gpus));
  for (const auto& node : plan.program.nodes) {
    if (!node.replicas->elastic()) continue;
    std::printf("elastic node %s: %u:%u, planned %zu replicas\n", node.name->c_str(), node.replicas->min,
                node.replicas->max, plan.tasks_of(*node.name).size());
  }
  struct Row {
    std::string task, host, cpus, gpus, mem, ports, framework;
  };
  std::vector<Row> rows{{"TASK", "HOST", "CPUS", "GPUS", "MEM", "PORTS", "FRAMEWORK"}};
  for (const auto& t : plan.tasks) {
    const auto& node = plan.node(t);
    std::vector<std::string> gpu_ids;
    for (auto g : t.gpus) gpu_ids.push_back(std::to_string(g));
    // A replay node runs no framework: the column says what it runs.
    std::string framework(*node.type == core::NodeType::replay ? "replay" : core::to_string(*node.framework));
    if (*node.daemon) framework += " (daemon)";
    rows.push_back({t.name(), plan.host(t).name, std::to_string(t.cpus), join(gpu_ids, ","),
                    t.mem_mb == 0 ? "-" : core::format_memory_mb(t.mem_mb), join(t.ports, ","), framework});
  }
  std::size_t w[6] = {};
  for (const Row& r : rows) {
    const std::string* cells[6] = {&r.task, &r.host, &r.cpus, &r.gpus, &r.mem, &r.ports};
    for (int i = 0; i < 6; ++i) w[i] = std::max(w[i], cells[i]->size());
  }
  for (const Row& r : rows) {
    std::printf("%-*s  %-*s  %*s  %-*s  %*s  %-*s  %s\n", static_cast<int>(w[0]), r.task.c_str(),
                static_cast<int>(w[1]), r.host.c_str(), static_cast<int>(w[2]), r.cpus.c_str(),
                static_cast<int>(w[3]), r.gpus.c_str(), static_cast<int>(w[4]), r.mem.c_str(),
                static_cast<int>(w[5]), r.ports.c_str(), r.framework.c_str());
  }
}

int run_plan(const PlanOptions& o) {
  const auto local = allocation_options(o.allocation, "plan");
  if (!local) return 2;
  const auto program = load_program(o.path);
  if (!program) return 2;
  // What `slipway run` would plan with: oversubscribed when it asks for more
  // CPUs than there are, unless --cpus-per-host says otherwise.
  const core::LocalRunAllocation machine = core::local_run_allocation(*program, *local);
  if (!machine.note.empty()) std::fprintf(stderr, "slipway: %s\n", machine.note.c_str());
  for (const std::string& note : core::address_file_notes(*program)) {
    std::fprintf(stderr, "slipway: note: %s\n", note.c_str());
  }
  const core::PlanResult result = core::make_plan(*program, machine.allocation);
  if (!result.ok()) {
    for (const auto& e : result.errors) {
      std::fprintf(stderr, "%s: %s\n", program->source_file.c_str(), e.message.c_str());
    }
    return 2;
  }
  if (o.json) {
    std::printf("%s\n", core::plan_to_json(*result.plan).dump(2).c_str());
  } else {
    print_table(*result.plan);
  }
  return 0;
}

}  // namespace

void register_plan(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<PlanOptions>();
  auto* cmd = app.add_subcommand("plan", "Show where every task of a topology would run; launches nothing");
  cmd->add_option("FILE", o->path, "Topology file (TOML; - for standard input); see docs/topology.md")->required();
  cmd->add_flag("--json", o->json, "Print the plan as JSON (docs/plan-json.md) instead of a table");
  add_allocation_options(cmd, o->allocation);
  cmd->footer(
      "Shows what `slipway run FILE` with the same options would run. Tasks fill the\n"
      "hosts in order; elastic nodes (replicas = \"MIN:MAX\") get as many replicas as fit.\n"
      "Without --cpus-per-host, a program asking for more CPUs than this machine has is\n"
      "planned oversubscribed, with a note on stderr, as `slipway run` runs it.\n"
      "FILE - reads the topology from standard input.\n"
      "Exit status: 0 planned, 2 invalid topology, bad option or does not fit.");
  cmd->callback([o, &ctx] { ctx.exit_code = run_plan(*o); });
}

}  // namespace slipway::cli
