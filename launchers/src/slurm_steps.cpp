// srun and salloc command lines of the Slurm controller (see header).
#include "slipway/launch/slurm_steps.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace slipway::launch {

StepRequest step_for_unit(const core::Plan& plan, const LaunchUnit& unit) {
  StepRequest step;
  step.program = *plan.program.name;
  step.unit_name = unit.name;
  step.host = plan.hosts.at(unit.host).name;
  step.cpus = 0;
  for (std::uint32_t id : unit.tasks) {
    const core::Task& task = plan.tasks.at(id);
    step.cpus += task.cpus;
    step.gpus += static_cast<std::uint32_t>(task.gpus.size());
    step.mem_mb += task.mem_mb;
  }
  step.cpus = std::max<std::uint32_t>(step.cpus, 1);
  return step;
}

namespace {

// A unit that can share a step with other replicas of its node: one task,
// no GPUs (the agent binds GPUs by plan index per task), memory that
// --mem-per-cpu expresses exactly.
bool groupable(const core::Plan& plan, const LaunchUnit& unit) {
  if (unit.tasks.size() != 1) return false;
  const core::Task& task = plan.tasks.at(unit.tasks.front());
  return task.gpus.empty() && (task.mem_mb == 0 || task.mem_mb % std::max<std::uint32_t>(task.cpus, 1) == 0);
}

}  // namespace

std::vector<std::vector<std::size_t>> group_into_steps(const core::Plan& plan,
                                                       const std::vector<LaunchUnit>& units,
                                                       const std::vector<std::size_t>& starting,
                                                       const std::vector<std::string>& unit_hosts) {
  std::vector<std::vector<std::size_t>> groups;
  const core::Task* last = nullptr;  // the last task of the open group
  for (std::size_t u : starting) {
    const LaunchUnit& unit = units.at(u);
    const core::Task* task = groupable(plan, unit) ? &plan.tasks.at(unit.tasks.front()) : nullptr;
    bool joins = task && last && task->node == last->node && task->replica == last->replica + 1 &&
                 unit_hosts.at(u) == unit_hosts.at(groups.back().back()) &&
                 task->cpus == last->cpus && task->mem_mb == last->mem_mb;
    if (joins) {
      groups.back().push_back(u);
    } else {
      groups.push_back({u});
    }
    last = task;
  }
  return groups;
}

StepRequest step_for_units(const core::Plan& plan, const std::vector<LaunchUnit>& units,
                           const std::vector<std::size_t>& group,
                           const std::vector<std::string>& unit_hosts) {
  StepRequest step = step_for_unit(plan, units.at(group.front()));
  const core::Task& first = plan.tasks.at(units.at(group.front()).tasks.front());
  const core::Task& last = plan.tasks.at(units.at(group.back()).tasks.front());
  step.node = first.node;
  step.replica_base = first.replica;
  step.unit_name = first.node + ".[" + std::to_string(first.replica) + "-" +
                   std::to_string(last.replica) + "]";
  step.host = unit_hosts.at(group.front());
  step.tasks = static_cast<std::uint32_t>(group.size());
  return step;
}

std::vector<std::string> srun_command(const StepRequest& step) {
  std::vector<std::string> argv{"srun", "--jobid=" + step.job_id};
  if (step.het_group >= 0) argv.push_back("--het-group=" + std::to_string(step.het_group));
  const bool several = step.tasks > 1;
  argv.insert(argv.end(), {"--nodes=1", "--ntasks=" + std::to_string(step.tasks),
                           "--nodelist=" + step.host});
  argv.insert(argv.end(), {"--cpus-per-task=" + std::to_string(step.cpus), "--exact",
                           "--kill-on-bad-exit=0", "--job-name=" + step.program + ":" + step.unit_name,
                           // The agent hosts the program's PMIx server: keep a site's
                           // MpiDefault=pmix from giving it a step-local one.
                           "--mpi=none"});
  // Without --mem a step would claim all of the job's memory on its host
  // where memory is tracked, and its siblings could not start beside it.
  if (step.mem_mb == 0) {
    argv.push_back("--mem=0");
  } else if (several) {
    argv.push_back("--mem-per-cpu=" + std::to_string(step.mem_mb / std::max<std::uint32_t>(step.cpus, 1)) + "M");
  } else {
    argv.push_back("--mem=" + std::to_string(step.mem_mb) + "M");
  }
  if (step.gpus > 0) argv.push_back("--gres=gpu:" + std::to_string(step.gpus));
  argv.insert(argv.end(), step.agent_argv.begin(), step.agent_argv.end());
  // Each task of a shared step finds its replica itself (slipway-exec
  // --node: $SLIPWAY_REPLICA, else base + $SLURM_PROCID).
  if (several) argv.insert(argv.end(), {"--node", step.node});
  return argv;
}

std::vector<std::string> step_environment(const StepRequest& step) {
  if (step.tasks <= 1) return {};
  return {"SLIPWAY_PROGRAM=" + step.program,
          "SLIPWAY_REPLICA_BASE=" + std::to_string(step.replica_base)};
}

bool step_drops_variable(std::string_view entry) {
  for (std::string_view name : {"SLIPWAY_REPLICA=", "SLIPWAY_REPLICA_BASE="}) {
    if (entry.substr(0, name.size()) == name) return true;
  }
  return false;
}

std::vector<std::string> salloc_arguments(const core::Program& program,
                                          const std::vector<std::string>& user_srun_args) {
  std::vector<std::string> args;
  auto user_sets = [&](std::initializer_list<const char*> names) {
    for (const auto& arg : user_srun_args) {
      for (const char* name : names) {
        std::string n(name);
        if (arg == n || arg.rfind(n + "=", 0) == 0 || (n.size() == 2 && arg.rfind(n, 0) == 0)) return true;
      }
    }
    return false;
  };
  if (!user_srun_args.empty()) {
    args = user_srun_args;
    // `srun -N3 --program=F`: the user chose the hosts; the program says
    // how many tasks and CPUs it needs.
    if (!user_sets({"-n", "--ntasks", "--ntasks-per-node", "-c", "--cpus-per-task"})) {
      std::uint64_t tasks = 0;
      std::uint32_t cpus = 1;
      for (const auto& node : program.nodes) {
        tasks += node.replicas->max;
        cpus = std::max(cpus, *node.cpus);
      }
      args.push_back("--ntasks=" + std::to_string(tasks));
      args.push_back("--cpus-per-task=" + std::to_string(cpus));
    }
  } else {
    using Shape = std::tuple<std::string, std::uint32_t, std::uint32_t, std::uint64_t,
                             std::string, std::string, std::string, std::string>;
    std::map<Shape, std::uint32_t> tasks;  // ordered: deterministic output
    std::vector<Shape> order;
    for (const auto& node : program.nodes) {
      Shape shape{*node.partition, *node.cpus, *node.gpus, *node.mem_mb,
                  *node.constraint, *node.account, *node.qos,
                  node.time_minutes.value ? std::to_string(node.time_minutes.value) : ""};
      if (!tasks.count(shape)) order.push_back(shape);
      tasks[shape] += node.replicas->max;
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto& [partition, cpus, gpus, mem, constraint, account, qos, minutes] = order[i];
      if (i > 0) args.push_back(":");
      if (!partition.empty()) args.push_back("--partition=" + partition);
      args.push_back("--ntasks=" + std::to_string(tasks[order[i]]));
      args.push_back("--cpus-per-task=" + std::to_string(cpus));
      if (gpus > 0) args.push_back("--gres=gpu:" + std::to_string(gpus));
      if (mem > 0) args.push_back("--mem-per-cpu=" + std::to_string((mem + cpus - 1) / cpus) + "M");
      if (!constraint.empty()) args.push_back("--constraint=" + constraint);
      if (!account.empty()) args.push_back("--account=" + account);
      if (!qos.empty()) args.push_back("--qos=" + qos);
      if (!minutes.empty()) args.push_back("--time=" + minutes);
    }
  }
  args.insert(args.begin(), "--no-kill");
  args.insert(args.begin(), "--job-name=" + *program.name);
  return args;
}

bool requests_gres(const std::vector<std::string>& salloc_args) {
  for (const auto& arg : salloc_args) {
    for (std::string_view prefix : {"--gres", "--gpu", "-G", "--cpus-per-gpu", "--mem-per-gpu", "--tres"}) {
      if (arg.rfind(prefix, 0) == 0) return true;
    }
  }
  return false;
}

}  // namespace slipway::launch
