// The local launcher: plans on this host and starts one task agent per
// launch unit, each a forked child process (see local_launcher.hpp).
#include "slipway/launch/local_launcher.hpp"

#include <signal.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "launcher_loop.hpp"
#include "slipway/core/plan_json.hpp"
#include "slipway/core/topology.hpp"
#include "slipway/exec/agent_entry.hpp"
#include "slipway/exec/line_prefixer.hpp"
#include "slipway/exec/local_address.hpp"

namespace slipway::launch {
namespace {

class LocalRun : public LauncherLoop {
 public:
  LocalRun(const LocalRunOptions& options, core::Plan plan, RunDirectory run_dir)
      : LauncherLoop(std::move(plan), std::move(run_dir), options.grace), options_(options) {}

 protected:
  // The agent runs in a forked copy of the launcher rather than as a new
  // slipway-exec program: the same code, without an exec, a dynamic link
  // and a plan file to parse per task.
  pid_t start_unit(std::size_t unit, int attempt, const std::vector<std::string>& env) override {
    exec::AgentOptions agent;
    for (std::uint32_t task : units()[unit].tasks) agent.tasks.push_back(plan().tasks[task].name());
    agent.attempt = static_cast<std::uint32_t>(attempt);
    agent.log_dir = run_dir().logs_path();
    agent.grace = options_.grace / 2;
    agent.wire_timeout = options_.wire_timeout;
    if (!advertise_host_) {  // once, not per agent: every agent runs here
      advertise_host_ =
          exec::local_address_toward(exec::endpoint_host(control().endpoint())).value_or("");
    }
    agent.advertise_host = *advertise_host_;
    return exec::fork_agent(plan(), agent, env);
  }

 private:
  const LocalRunOptions& options_;
  std::optional<std::string> advertise_host_;
};

}  // namespace

int run_local(const LocalRunOptions& options) {
  auto program = load_or_report(options.topology_path);
  if (!program) return 2;
  // A workstation runs what it is given: unless told how many CPUs to plan
  // with, oversubscribe this machine's CPUs rather than refuse (GPUs and
  // memory are never oversubscribed).
  core::LocalAllocationOptions allocation = options.allocation;
  auto machine = core::local_allocation(allocation);
  std::uint64_t wanted = 0;
  for (const auto& node : program->nodes) {
    wanted += std::uint64_t{*node.cpus} * node.replicas->max;
  }
  std::uint64_t have = 0;
  for (const auto& host : machine.hosts) have += host.cpus;
  if (!allocation.cpus_per_host && wanted > have) {
    std::uint32_t hosts = static_cast<std::uint32_t>(machine.hosts.size());
    allocation.cpus_per_host = static_cast<std::uint32_t>((wanted + hosts - 1) / hosts);
    say("note: the program asks for " + std::to_string(wanted) + " cpus and this machine has " +
        std::to_string(have) + "; running oversubscribed (--cpus-per-host to plan otherwise)");
  }
  auto planned = core::make_plan(*program, core::local_allocation(allocation));
  if (!planned.ok()) {
    say("program '" + *program->name + "' does not fit on this machine:");
    for (const auto& e : planned.errors) exec::write_all(STDERR_FILENO, "  " + e.message + "\n");
    say("lower cpus, gpus, mem or replicas, or plan with --cpus-per-host/--gpus-per-host/--hosts");
    return 2;
  }
  try {
    const std::string& name = *planned.plan->program.name;
    auto run_dir = RunDirectory::create(
        options.run_root.empty() ? default_run_root() : options.run_root, name);
    run_dir.write_file("plan.json", core::plan_to_json(*planned.plan).dump(2) + "\n");
    say("running program '" + name + "' (" + std::to_string(planned.plan->tasks.size()) +
        " tasks); run directory " + run_dir.path());
    LocalRun run(options, std::move(*planned.plan), std::move(run_dir));
    return run.run(ControlPlaneOptions{});
  } catch (const std::exception& e) {
    say(std::string("error: ") + e.what());
    return 1;
  }
}

}  // namespace slipway::launch
