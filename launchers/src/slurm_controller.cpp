// The Slurm controller's entry point (slurm_controller.hpp): outside an
// allocation the salloc re-exec (salloc_reexec.hpp); inside one, the run's
// prologue (the allocation read, its GPUs and this host's advertised
// address asked of scontrol, the plan, Slurm's step limit, the run
// directory), then the run (slurm_run.hpp).
#include "slipway/launch/slurm_controller.hpp"

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "launcher_loop.hpp"
#include "salloc_reexec.hpp"
#include "slipway/base/local_address.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/core/plan_json.hpp"
#include "slipway/core/satellite_slots.hpp"
#include "slipway/launch/run_outcome.hpp"
#include "slipway/launch/slurm_allocation.hpp"
#include "slipway/launch/slurm_steps.hpp"
#include "slurm_commands.hpp"
#include "slurm_run.hpp"

namespace slipway::launch {
namespace {

LaunchOutcome launch_error(const std::string& message) {
  LaunchOutcome failed;
  failed.problems.push_back({message});
  return failed;
}

}  // namespace

LaunchOutcome run_slurm(const SlurmLaunchOptions& options, const core::Program& program) {
  std::optional<SlurmJob> job;
  try {
    job = read_slurm_job(process_environment());
  } catch (const std::exception& e) {
    return launch_error(std::string("error: cannot read the Slurm allocation: ") + e.what());
  }
  if (!job) return run_under_salloc(options, program);
  const bool job_has_no_gpus = std::getenv(core::env::kLaunchInSalloc) && std::getenv(core::env::kLaunchNoGpus);
  unsetenv(core::env::kLaunchNoGpus);  // not for the steps
  // The address compute hosts reach this host at: $SLIPWAY_ADVERTISE_HOST,
  // or the source address of the route toward the job's first host: at its
  // name, else at Slurm's NodeAddr for it.
  std::string first_host;
  for (const auto& component : job->components) {
    if (!component.hosts.empty()) {
      first_host = component.hosts.front();
      break;
    }
  }
  std::string advertise;
  if (const char* forced = std::getenv(core::env::kAdvertiseHost); forced && *forced) {
    advertise = forced;
  } else if (auto address = base::local_address_toward(first_host)) {
    advertise = *address;
  }
  // One scontrol for what is left to ask: the GPUs of every component
  // (Slurm sets no variable for --gres in salloc) and the first host's
  // NodeAddr.
  std::vector<std::string> queries;
  if (!job_has_no_gpus) {
    queries.push_back("details");
    for (const auto& component : job->components) queries.push_back("show job " + component.job_id);
  }
  if (advertise.empty() && !first_host.empty()) queries.push_back("show node " + first_host);
  const std::string detail = queries.empty() ? std::string() : scontrol(queries);
  if (!job_has_no_gpus) {
    try {
      apply_gpus(*job, gpus_from_scontrol(detail));
    } catch (const std::exception& e) {
      say(std::string("warning: cannot read the GPUs of job ") + job->job_id + ": " + e.what());
    }
  }
  if (advertise.empty()) {
    if (auto node_addr = node_address_from_scontrol(detail, first_host)) {
      advertise = base::local_address_toward(*node_addr).value_or("");
    }
  }
  if (advertise.empty()) advertise = base::this_host_name();
  auto planned = core::make_plan(program, allocation_of(*job));
  if (!planned.ok()) {
    LaunchOutcome refused;
    refused.kind = LaunchOutcome::Kind::Invalid;
    LaunchProblem fit{"program '" + *program.name + "' does not fit in job " + job->job_id + ":"};
    for (const auto& e : planned.errors) fit.details.push_back(e.message);
    refused.problems.push_back(std::move(fit));
    return refused;
  }
  const core::SatelliteSettings satellites = core::satellite_settings(program);
  core::add_satellite_slots(*planned.plan, satellites.jobs);
  // Refused before anything starts when Slurm would refuse its steps.
  const std::size_t steps = first_launch_steps(*planned.plan, launch_units(*planned.plan));
  // From slurm.conf itself: no scontrol round trip at every start.
  const char* slurm_conf = std::getenv("SLURM_CONF");
  const std::optional<std::uint64_t> max_steps =
      max_step_count_of_slurm_conf(slurm_conf && *slurm_conf ? slurm_conf : "/etc/slurm/slurm.conf");
  if (max_steps) {
    if (auto problem = step_limit_problem(steps, *max_steps)) {
      LaunchOutcome refused;
      refused.kind = LaunchOutcome::Kind::Invalid;
      refused.problems.push_back({"program '" + *program.name + "' cannot run in job " + job->job_id + ": " + *problem});
      return refused;
    }
  }
  std::string run_directory;
  try {
    const std::string& name = *planned.plan->program.name;
    // The run is the job's: a requeued job resumes it (docs/resume.md).
    const char* array_job = std::getenv("SLURM_ARRAY_JOB_ID");
    const char* array_task = std::getenv("SLURM_ARRAY_TASK_ID");
    const std::string job_key = array_job && *array_job && array_task && *array_task
                                    ? std::string(array_job) + "_" + array_task
                                    : job->job_id;
    auto run_dir = RunDirectory::for_job(options.run_root.empty() ? default_run_root() : options.run_root,
                                         name, job_key);
    run_directory = run_dir.path();
    export_run_environment(run_dir);
    run_dir.write_file("plan.json", core::plan_to_json(*planned.plan, core::PlanTasks::runs).dump(2) + "\n");
    say((run_dir.resume_count() > 0 ? "resuming program '" + name + "' (resume " +
                                          std::to_string(run_dir.resume_count()) + ", "
                                    : "running program '" + name + "' (") +
        std::to_string(planned.plan->tasks.size()) + " tasks, " + std::to_string(steps) + " job steps) in job " +
        job_key + "; run directory " +
        run_dir.path());
    ControlPlaneOptions control;
    control.bind = "0.0.0.0";
    control.advertise_host = advertise;
    control.tasks_per_host = planned.plan->busiest_host_tasks();
    if (satellites.jobs > 0) control.observed_key_prefixes.emplace_back(core::keys::kSatellitePrefix);
    return run_in_job(options, std::move(*job), std::move(*planned.plan), std::move(run_dir), max_steps,
                      std::move(control));
  } catch (const std::exception& e) {
    LaunchOutcome failed = launch_error(std::string("error: ") + e.what());
    failed.run_directory = run_directory;
    write_error_outcome(run_directory, *program.name, failed.problems.back().message);
    return failed;
  }
}

}  // namespace slipway::launch
