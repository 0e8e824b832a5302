// The local launcher: plans on this host, runs every task that is alone in
// its unit itself (tasks/task_runner.hpp) and starts slipway-exec for each
// colocate group (see local_launcher.hpp).
#include "slipway/core/contract.hpp"
#include "slipway/launch/local_launcher.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <set>
#include <string>

#include "launcher_loop.hpp"
#include "slipway/base/environment.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/scratch_dir.hpp"
#include "slipway/core/plan_json.hpp"
#include "slipway/exec/proc_files.hpp"
#include "slipway/exec/usage_publisher.hpp"
#include "slipway/launch/run_outcome.hpp"
#include "slipway/launch/server_task_control.hpp"
#include "slipway/rendezvous/server.hpp"
#include "slipway/tasks/horovod_task_hooks.hpp"
#include "slipway/tasks/launch_environment.hpp"
#include "slipway/tasks/task_log.hpp"
#include "slipway/tasks/task_runner.hpp"


namespace slipway::launch {
namespace {

// The launcher hears, for the tasks it runs itself (LoopListener): their
// commands' exits, their keys and the checkpoint notices.
class LocalRun : public LauncherLoop, private LoopListener {
 public:
  LocalRun(const LocalRunOptions& options, core::Plan plan, RunDirectory run_dir)
      : LauncherLoop(std::move(plan), std::move(run_dir), options.grace,
                     [this](std::size_t unit) { return descriptors_of(unit); }),
        options_(options),
        run_inline_(!is_off(std::getenv(core::env::kInlineTasks))) {
    set_notice_window(options.notice_window);
    set_observe({observe_address(options.metrics, this->plan().program),
                 options.run_root.empty() ? default_run_root() : options.run_root});
    listen(*this);
  }

 protected:
  // Tasks alone in their unit run in this process's event loop, with the
  // task runner slipway-exec runs them with (tasks/task_runner.hpp).
  // One unit a carrier; the tasks run here are prepared together.
  std::vector<std::vector<std::size_t>> launching(const std::vector<std::size_t>& starting, int attempt) override {
    std::vector<tasks::TaskStart> tasks;
    for (std::size_t unit : starting) {
      if (runs_inline(unit)) {
        tasks.push_back({units()[unit].tasks.front(), launch_of(unit, attempt), {}, live_plan()});
      }
    }
    if (!tasks.empty()) runner().prepare(tasks);
    return LauncherLoop::launching(starting, attempt);
  }

  UnitHandle start_units(const std::vector<std::size_t>& group, int attempt,
                         const std::vector<std::string>& env) override {
    const std::size_t unit = group.front();
    if (runs_inline(unit)) {
      tasks::TaskStart start{units()[unit].tasks.front(), launch_of(unit, attempt), {}, live_plan()};
      for (const auto& entry : env) {
        auto eq = entry.find('=');
        if (eq != std::string::npos) start.env[entry.substr(0, eq)] = entry.substr(eq + 1);
      }
      // A task that could not start has ended already: its end is reported
      // on the loop's next turn, once the loop knows its carrier.
      return UnitHandle::of_task(runner().start(start));
    }
    // Colocated groups and mpi tasks: a slipway-exec of their own.
    base::SpawnOptions spawn;
    spawn.argv = {options_.exec_path, "--plan", run_dir().plan_path(), "--attempt",
                  std::to_string(task_attempt(attempt)), "--epoch", std::to_string(unit_epoch(unit)), "--log-dir", run_dir().logs_path(), "--grace-ms",
                  std::to_string(options_.grace.count() / 2), "--wire-timeout-ms",
                  std::to_string(options_.wire_timeout.count())};
    for (const std::string& arg : live_arguments()) spawn.argv.push_back(arg);
    for (std::uint32_t task : units()[unit].tasks) {
      spawn.argv.push_back("--task");
      spawn.argv.push_back(plan().tasks[task].name());
    }
    spawn.env = base::this_environment();
    spawn.env.insert(spawn.env.end(), env.begin(), env.end());  // later entries win
    spawn.new_process_group = true;  // Ctrl-C reaches the launcher only
    spawn.parent_death_signal = SIGTERM;
    // A stop sent while the agent starts waits for it (its signalfd).
    spawn.blocked_signals = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD};
    const pid_t agent = base::spawn(spawn);
    if (has_mpi(unit)) mpi_agents_.insert(agent);
    return UnitHandle::of_process(agent);
  }

  void signal_unit(std::size_t unit, UnitHandle carrier, int sig) override {
    if (!carrier.is_process()) {
      if (runner_) runner_->signal(carrier.task(), sig);
    } else {
      LauncherLoop::signal_unit(unit, carrier, sig);
    }
  }
  void process_ended(pid_t pid, const base::ExitStatus& status) override {
    if (runner_) runner_->reaped(pid, status);
    // An MPI agent killed by a signal could not remove its private
    // directories (the PMIx server's, Open MPI's session and shared-memory
    // ones): their lock is free now, so they go at once, not at the next
    // MPI start.
    if (mpi_agents_.erase(pid) > 0 && status.signaled) base::remove_stale_scratch_dirs();
  }
  void key_changed(const std::string& key) override {
    if (runner_) runner_->key_changed(key);
  }
  void notice_published(const std::string& notice) override {
    if (runner_) runner_->checkpoint_notice({}, notice);
  }

 private:
  core::TaskLaunch launch_of(std::size_t unit, int attempt) const {
    return {static_cast<std::uint32_t>(task_attempt(attempt)), static_cast<std::uint32_t>(unit_epoch(unit))};
  }

  static bool is_off(const char* value) {
    return value && (std::string(value) == "0" || std::string(value) == "no");
  }

  // Every task alone in its unit, but an mpi task: its PMIx server is
  // one per slipway-exec, the layout whose fence failures, direct modex and
  // retries are served (one server hosting every rank in this process
  // would neither fail a fence when a local rank leaves nor take a retried
  // rank back; issue 13's per-epoch worlds change that).
  bool runs_inline(std::size_t unit) const {
    const LaunchUnit& u = units()[unit];
    return run_inline_ && u.tasks.size() == 1 &&
           *plan().node(plan().tasks[u.tasks.front()]).framework != core::Framework::mpi;
  }

  bool has_mpi(std::size_t unit) const {
    for (std::uint32_t task : units()[unit].tasks) {
      if (*plan().node(plan().tasks[task]).framework == core::Framework::mpi) return true;
    }
    return false;
  }

  // A task run here: its output pipes, log and held ports; an agent: its
  // rendezvous connection (its pipes are its own).
  std::size_t descriptors_of(std::size_t unit) const {
    if (!runs_inline(unit)) return 2;
    return tasks::TaskRunner::descriptors_per_task(plan().tasks[units()[unit].tasks.front()]);
  }

  tasks::TaskRunner& runner() {
    if (runner_) return *runner_;
    control_ = std::make_unique<ServerTaskControl>(control().server(), control().endpoint(),
                                                   control().token());
    tasks::TaskRunnerOptions runner_options;
    runner_options.speaker = "slipway";
    runner_options.log_dir = run_dir().logs_path();
    runner_options.log_limit = options_.log_limit;
    runner_options.address_dir = run_dir().addresses_path();
    runner_options.run_dir = run_dir().path();
    // As agent_main: the environment may override both.
    runner_options.advertise_host = tasks::advertise_host_from_environment("", control().endpoint());
    runner_options.wire_timeout = tasks::wire_timeout_from_environment(options_.wire_timeout);
    runner_options.grace = options_.grace / 2;
    runner_options.inherited_env = base::this_environment();
    runner_options.hooks.push_back(&horovod_hooks_);
    runner_ = std::make_unique<tasks::TaskRunner>(plan(), *control_, std::move(runner_options));
    runner_source_ = std::make_unique<RunnerSource>(*this);
    add_source(*runner_source_);
    return *runner_;
  }

  // usage/NODE.REPLICA of the tasks run here, as slipway-exec puts its
  // tasks' (exec/usage_publisher.hpp): the launcher is their agent.
  void sample_usage() {
    std::vector<exec::UsagePublisher::Task> running;
    auto& server = control().server();
    for (std::size_t unit = 0; unit < units().size(); ++unit) {
      const UnitHandle carrier = unit_carrier(unit);
      if (!carrier || carrier.is_process()) continue;
      const auto pid = runner_->running_command(carrier.task());
      if (!pid) continue;
      running.push_back({plan().tasks[units()[unit].tasks.front()].name(), *pid,
                         [&server](const std::string& key, const std::string& value, exec::UsagePublisher::Done done) {
                           server.put(key, value);
                           done(true, {});
                         }});
    }
    const auto unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
    usage_.sample(Clock::now(), unix_ms, running);
  }

  // The runner as the loop polls it; the ends of its tasks are reported
  // here, the one place (never from inside a start or a signal).
  struct RunnerSource final : base::PollSource {
    explicit RunnerSource(LocalRun& owner) : run(owner) {}
    void watch(std::vector<pollfd>& fds) override { run.runner_->watch(fds); }
    void watched(const pollfd* fds, std::size_t count) override {
      run.runner_->watched(fds, count);
      for (const tasks::TaskEnd& end : run.runner_->take_ended()) {
        run.carrier_ended(UnitHandle::of_task(end.id), end.status);
      }
      if (Clock::now() >= run.usage_.next_sample()) run.sample_usage();
    }
    std::optional<Clock::time_point> deadline() const override {
      auto deadline = run.runner_->deadline();
      if (!deadline || run.usage_.next_sample() < *deadline) deadline = run.usage_.next_sample();
      return deadline;
    }
    LocalRun& run;
  };

  const LocalRunOptions& options_;
  bool run_inline_;
  std::set<pid_t> mpi_agents_;  // running slipway-exec of units with mpi tasks
  // Destroyed in reverse: the runner first (its commands killed), then the
  // hooks (Horovod's store), then the control.
  std::unique_ptr<ServerTaskControl> control_;
  tasks::HorovodTaskHooks horovod_hooks_;
  std::unique_ptr<tasks::TaskRunner> runner_;
  std::unique_ptr<RunnerSource> runner_source_;
  exec::ProcFiles proc_files_;
  exec::UsagePublisher usage_{proc_files_, exec::UsagePublisher::host_options(), [](const std::string& line) { say(line); }};
};

}  // namespace

LaunchOutcome run_local(const LocalRunOptions& given, const core::Program& program) {
  LocalRunOptions options = given;
  LaunchOutcome refused;
  refused.kind = LaunchOutcome::Kind::Invalid;
  if (auto limit = tasks::log_limit_from_environment()) {
    options.log_limit = *limit;
  } else {
    refused.problems.push_back(
        {"SLIPWAY_LOG_LIMIT='" + std::string(std::getenv(core::env::kLogLimit)) +
         "' is no size: give bytes with an optional K, M or G suffix (0: no limit)"});
    return refused;
  }
  // A workstation runs what it is given: unless told how many CPUs to plan
  // with, oversubscribe this machine's CPUs rather than refuse (as `slipway
  // plan` shows).
  const auto machine = core::local_run_allocation(program, options.allocation);
  if (!machine.note.empty()) say(machine.note);
  auto planned = core::make_plan(program, machine.allocation);
  if (!planned.ok()) {
    LaunchProblem fit{"program '" + *program.name + "' does not fit on this machine:"};
    for (const auto& e : planned.errors) fit.details.push_back(e.message);
    refused.problems.push_back(std::move(fit));
    refused.problems.push_back(
        {"lower cpus, gpus, mem or replicas, or plan with --cpus-per-host/--gpus-per-host/--hosts"});
    return refused;
  }
  std::string run_directory;
  try {
    const std::string& name = *planned.plan->program.name;
    auto run_dir = options.resume_run.empty()
                       ? RunDirectory::create(options.run_root.empty() ? default_run_root() : options.run_root, name)
                       : RunDirectory::resume(options.resume_run, name);
    run_directory = run_dir.path();
    export_run_environment(run_dir);
    run_dir.write_file("plan.json", core::plan_to_json(*planned.plan, core::PlanTasks::runs).dump(2) + "\n");
    say((run_dir.resume_count() > 0 ? "resuming program '" + name + "' (resume " +
                                          std::to_string(run_dir.resume_count()) + ", "
                                    : "running program '" + name + "' (") +
        std::to_string(planned.plan->tasks.size()) + " tasks); run directory " + run_dir.path());
    // What agents of an earlier run that were killed left (a PMIx server's
    // and Open MPI's private directories), when this program has MPI nodes.
    for (const auto& node : planned.plan->program.nodes) {
      if (*node.framework == core::Framework::mpi) {
        base::remove_stale_scratch_dirs();
        break;
      }
    }
    ControlPlaneOptions control;
    control.tasks_per_host = planned.plan->busiest_host_tasks();
    control.observed_key_prefixes = {std::string(core::keys::kAddressPrefix)};  // peers' addresses, for tasks run inline
    LocalRun run(options, std::move(*planned.plan), std::move(run_dir));
    return run.run(std::move(control));
  } catch (const std::exception& e) {
    LaunchOutcome failed;
    failed.run_directory = run_directory;
    failed.problems.push_back({std::string("error: ") + e.what()});
    write_error_outcome(run_directory, *program.name, failed.problems.back().message);
    return failed;
  }
}

}  // namespace slipway::launch
