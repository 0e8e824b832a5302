// srun command lines of the Slurm controller (see header).
#include "slipway/core/contract.hpp"
#include "slipway/launch/slurm_steps.hpp"

#include <algorithm>

#include "slipway/core/live_plan.hpp"

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

// A step of several replicas whose Slurm tasks each run an agent (an MPI
// node's), rather than one agent running them all.
bool agent_per_task(const StepRequest& step) { return step.tasks > 1 && !step.one_agent; }

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
                 task->cpus == last->cpus && task->mem_mb == last->mem_mb &&
                 groups.back().size() < kMaxTasksPerStep;
    if (joins) {
      groups.back().push_back(u);
    } else {
      groups.push_back({u});
    }
    last = task;
  }
  return groups;
}

std::size_t first_launch_steps(const core::Plan& plan, const std::vector<LaunchUnit>& units) {
  std::vector<std::string> unit_hosts;
  std::vector<std::size_t> in_job;
  for (std::size_t u = 0; u < units.size(); ++u) {
    const core::Host& host = plan.hosts.at(units[u].host);
    unit_hosts.push_back(host.name);
    if (!host.satellite) in_job.push_back(u);
  }
  return group_into_steps(plan, units, in_job, unit_hosts).size();
}

std::optional<std::string> step_limit_problem(std::size_t steps, std::uint64_t max_steps) {
  if (steps <= max_steps) return std::nullopt;
  return "it starts " + std::to_string(steps) + " job steps, and this cluster lets a job start at most " +
         std::to_string(max_steps) +
         " (MaxStepCount in slurm.conf): give it fewer units per host (replicas of one node on one host "
         "share a step, up to " +
         std::to_string(kMaxTasksPerStep) +
         "; colocated groups, GPU tasks and tasks whose memory is not a multiple of their CPUs take a "
         "step each), or ask the site to raise MaxStepCount";
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
  step.one_agent = *plan.node(first).framework != core::Framework::mpi;
  return step;
}

std::vector<std::string> srun_command(const StepRequest& step) {
  std::vector<std::string> argv{"srun", "--jobid=" + step.job_id};
  if (step.het_group >= 0) argv.push_back("--het-group=" + std::to_string(step.het_group));
  const bool several = step.tasks > 1;
  const bool per_task = agent_per_task(step);
  const std::uint32_t slurm_tasks = per_task ? step.tasks : 1;
  const std::uint32_t cpus_per_task = per_task ? step.cpus : step.cpus * step.tasks;
  argv.insert(argv.end(), {"--nodes=1", "--ntasks=" + std::to_string(slurm_tasks),
                           "--nodelist=" + step.host});
  argv.insert(argv.end(), {"--cpus-per-task=" + std::to_string(cpus_per_task), "--exact",
                           "--kill-on-bad-exit=0", "--job-name=" + step.program + ":" + step.unit_name,
                           // The agent hosts the program's PMIx server: keep a site's
                           // MpiDefault=pmix from giving it a step-local one.
                           "--mpi=none"});
  // Without --mem a step would claim all of the job's memory on its host
  // where memory is tracked, and its siblings could not start beside it.
  if (step.mem_mb == 0) {
    argv.push_back("--mem=0");
  } else if (per_task) {
    argv.push_back("--mem-per-cpu=" + std::to_string(step.mem_mb / std::max<std::uint32_t>(step.cpus, 1)) + "M");
  } else {
    argv.push_back("--mem=" + std::to_string(step.mem_mb * step.tasks) + "M");
  }
  if (step.gpus > 0) argv.push_back("--gres=gpu:" + std::to_string(step.gpus));
  argv.insert(argv.end(), step.agent_argv.begin(), step.agent_argv.end());
  if (per_task) {
    // Each task finds its replica itself (slipway-exec --node:
    // $SLIPWAY_REPLICA, else base + $SLURM_PROCID).
    argv.insert(argv.end(), {"--node", step.node});
  } else if (several) {
    std::vector<std::uint32_t> replicas(step.tasks);
    for (std::uint32_t k = 0; k < step.tasks; ++k) replicas[k] = step.replica_base + k;
    argv.insert(argv.end(), {"--node", step.node, "--replicas", core::format_replica_list(replicas)});
  }
  return argv;
}

std::vector<std::string> step_environment(const StepRequest& step) {
  if (!agent_per_task(step)) return {};
  return {std::string(core::env::kProgram) + "=" + step.program,
          std::string(core::env::kReplicaBase) + "=" + std::to_string(step.replica_base)};
}

bool step_drops_variable(std::string_view entry) {
  for (std::string_view name : {core::env::kReplica, core::env::kReplicaBase}) {
    if (entry.size() > name.size() && entry.substr(0, name.size()) == name &&
        entry[name.size()] == '=') {
      return true;
    }
  }
  return false;
}

}  // namespace slipway::launch
