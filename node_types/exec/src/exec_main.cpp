// slipway-exec: the task agent's command line. The launchers start it;
// users normally never type it (docs/local.md, "The task agent").
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "slipway/core/live_plan.hpp"
#include "slipway/core/plan_json.hpp"
#include "slipway/exec/agent_entry.hpp"

int main(int argc, char** argv) {
  using namespace slipway;
  exec::block_agent_signals();  // before any thread exists

  CLI::App app{"slipway-exec - run one task of a slipway program (started by the launcher)",
               "slipway-exec"};
  std::string plan_path;
  exec::AgentOptions options;
  long long grace_ms = 5000;
  long long wire_timeout_ms = 300000;
  app.add_option("--plan", plan_path, "The program's plan (plan.json from the run directory)")
      ->required();
  std::string node;
  auto* task_option =
      app.add_option("--task", options.tasks, "NODE.REPLICA to run; repeat for colocated tasks");
  auto* node_option =
      app.add_option("--node", node,
                     "Run replica $SLIPWAY_REPLICA of NODE (else $SLIPWAY_REPLICA_BASE + "
                     "$SLURM_PROCID): one Slurm step starting several replicas")
          ->excludes(task_option);
  std::string replicas;
  app.add_option("--replicas", replicas,
                 "With --node: run these replicas of NODE (LIST like 0-127), each a unit of "
                 "its own (one that fails leaves the others running)")
      ->needs(node_option);
  app.add_option("--attempt", options.attempt, "Resubmission count, 0 on first launch");
  app.add_option("--epoch", options.epoch,
                 "Epoch of the tasks' world, 0 at launch (+1 per whole-world restart)");
  std::vector<std::string> live;
  app.add_option("--live", live,
                 "NODE=LIST: the live replicas of an elastic node (LIST like 0-2,5); the tasks' "
                 "environment describes the program at that size");
  app.add_option("--log-dir", options.log_dir, "Append each task's output to DIR/NODE.REPLICA.log");
  app.add_option("--grace-ms", grace_ms, "Time between SIGTERM and SIGKILL when stopping");
  app.add_flag("--slurm-step", options.slurm_step,
               "Run as a Slurm job step of slipway launch: SIGTERM from Slurm is left to the launcher's "
               "checkpoint notice for tasks that hear notices; SIGUSR1/SIGUSR2 ask for a notice and a stop");
  app.add_option("--wire-timeout-ms", wire_timeout_ms,
                 "How long to wait for peers' addresses (env SLIPWAY_WIRE_TIMEOUT, seconds, wins)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!replicas.empty()) {
    auto list = core::parse_replica_list(replicas, core::kReplicaIndexLimit);
    if (!list || list->empty()) {
      std::fprintf(stderr, "slipway-exec: --replicas %s: not a list of replicas (like 0-2,5)\n",
                   replicas.c_str());
      return 2;
    }
    for (std::uint32_t r : *list) options.tasks.push_back(node + "." + std::to_string(r));
    options.separate_units = true;
  } else if (!node.empty()) {
    auto replica = exec::replica_from_environment();
    if (!replica) {
      std::fprintf(stderr, "slipway-exec: --node %s: no replica number in SLIPWAY_REPLICA, nor in "
                   "SLIPWAY_REPLICA_BASE + SLURM_PROCID (unset, or not a number up to 10^9)\n",
                   node.c_str());
      return 2;
    }
    options.tasks.push_back(node + "." + *replica);
  }
  if (options.tasks.empty()) {
    std::fprintf(stderr, "slipway-exec: give --task NODE.REPLICA or --node NODE\n");
    return 2;
  }
  options.grace = std::chrono::milliseconds(grace_ms);
  options.wire_timeout = std::chrono::milliseconds(wire_timeout_ms);

  core::Plan plan;
  try {
    plan = core::read_plan_file(plan_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "slipway-exec: %s\n", e.what());
    return 1;
  }
  if (!live.empty()) {
    core::LiveSets sets;
    for (const std::string& arg : live) {
      auto parsed = core::parse_live_set(arg, static_cast<std::uint32_t>(plan.tasks.size()));
      if (!parsed || plan.tasks_of(parsed->node).empty()) {
        std::fprintf(stderr, "slipway-exec: --live %s: not NODE=LIST of a node of the plan (LIST like 0-2,5)\n",
                     arg.c_str());
        return 2;
      }
      sets[parsed->node] = std::move(parsed->replicas);
    }
    plan = core::live_plan(plan, sets);
  }
  return exec::agent_main(plan, options);
}
