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

std::vector<std::string> srun_command(const StepRequest& step) {
  std::vector<std::string> argv{"srun", "--jobid=" + step.job_id};
  if (step.het_group >= 0) argv.push_back("--het-group=" + std::to_string(step.het_group));
  argv.insert(argv.end(), {"--nodes=1", "--ntasks=1", "--nodelist=" + step.host,
                           "--cpus-per-task=" + std::to_string(step.cpus), "--exact",
                           "--kill-on-bad-exit=0", "--job-name=" + step.program + ":" + step.unit_name,
                           // The agent hosts the program's PMIx server: keep a site's
                           // MpiDefault=pmix from giving it a step-local one.
                           "--mpi=none"});
  // Without --mem a step would claim all of the job's memory on its host
  // where memory is tracked, and its siblings could not start beside it.
  argv.push_back(step.mem_mb > 0 ? "--mem=" + std::to_string(step.mem_mb) + "M" : "--mem=0");
  if (step.gpus > 0) argv.push_back("--gres=gpu:" + std::to_string(step.gpus));
  argv.insert(argv.end(), step.agent_argv.begin(), step.agent_argv.end());
  return argv;
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

}  // namespace slipway::launch
