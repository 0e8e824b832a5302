// The local launcher: plans on this host, runs plain tasks itself
// (inline_tasks.hpp) and starts slipway-exec for every other launch unit
// (see local_launcher.hpp).
#include "slipway/core/contract.hpp"
#include "slipway/launch/local_launcher.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "slipway/launch/inline_tasks.hpp"
#include "launcher_loop.hpp"
#include "slipway/core/plan_json.hpp"
#include "slipway/exec/agent_environment.hpp"
#include "slipway/base/process.hpp"
#include "slipway/exec/task_command.hpp"
#include "slipway/base/local_address.hpp"
#include "slipway/base/scratch_dir.hpp"
#include "slipway/exec/task_log.hpp"

extern char** environ;

namespace slipway::launch {
namespace {

class LocalRun : public LauncherLoop {
 public:
  LocalRun(const LocalRunOptions& options, core::Plan plan, RunDirectory run_dir)
      : LauncherLoop(std::move(plan), std::move(run_dir), options.grace),
        options_(options),
        run_inline_(!is_off(std::getenv(core::env::kInlineTasks))) {}

 protected:
  // A plain task runs in this process's event loop (inline_tasks.hpp),
  // with the agent's own code for its environment, output and log.
  void launching(const std::vector<std::size_t>& starting, int attempt) override {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> tasks;
    for (std::size_t unit : starting) {
      if (runs_inline(unit)) {
        tasks.emplace_back(units()[unit].tasks.front(), static_cast<std::uint32_t>(attempt));
      }
    }
    if (!tasks.empty()) inline_tasks().prepare(tasks);
  }

  // One unit a process (group_first_launches is not overridden).
  pid_t start_units(const std::vector<std::size_t>& group, int attempt,
                    const std::vector<std::string>& env) override {
    const std::size_t unit = group.front();
    if (runs_inline(unit)) {
      return inline_tasks().start(units()[unit].tasks.front(), static_cast<std::uint32_t>(attempt),
                                  env);
    }
    // Colocated groups, mpi (a PMIx server) and horovod (its store) units:
    // a slipway-exec of their own.
    base::SpawnOptions spawn;
    spawn.argv = {options_.exec_path, "--plan", run_dir().plan_path(), "--attempt",
                  std::to_string(attempt), "--log-dir", run_dir().logs_path(), "--grace-ms",
                  std::to_string(options_.grace.count() / 2), "--wire-timeout-ms",
                  std::to_string(options_.wire_timeout.count())};
    for (std::uint32_t task : units()[unit].tasks) {
      spawn.argv.push_back("--task");
      spawn.argv.push_back(plan().tasks[task].name());
    }
    spawn.env = exec::inherited_environment(environ);
    spawn.env.insert(spawn.env.end(), env.begin(), env.end());  // later entries win
    spawn.new_process_group = true;  // Ctrl-C reaches the launcher only
    spawn.parent_death_signal = SIGTERM;
    return base::spawn(spawn);
  }

  void signal_unit(std::size_t unit, pid_t pid, int sig) override {
    if (inline_ && inline_->owns(pid)) {
      inline_->signal(pid, sig);
    } else {
      LauncherLoop::signal_unit(unit, pid, sig);
    }
  }
  void process_ended(pid_t pid, const base::ExitStatus& status) override {
    if (!inline_) return;
    inline_->reaped(pid, status);
    report_inline_ends();
  }
  void watch(std::vector<pollfd>& fds) override {
    if (inline_) inline_->watch(fds);
  }
  void watched(const pollfd* fds, std::size_t count) override {
    if (!inline_) return;
    inline_->watched(fds, count);
    report_inline_ends();
  }
  std::size_t descriptors_of(std::size_t unit) const override {
    // A plain task: its two output pipes, its log and its held ports; an
    // agent: its rendezvous connection (its pipes are its own).
    if (!runs_inline(unit)) return 2;
    return 3 + plan().tasks[units()[unit].tasks.front()].ports.size();
  }
  std::optional<Clock::time_point> own_deadline() const override {
    return inline_ ? inline_->deadline() : std::nullopt;
  }
  void key_changed(const std::string& key) override {
    if (!inline_) return;
    inline_->key_changed(key);
    report_inline_ends();
  }

 private:
  static bool is_off(const char* value) {
    return value && (std::string(value) == "0" || std::string(value) == "no");
  }

  bool runs_inline(std::size_t unit) const {
    return run_inline_ && InlineTasks::can_run(plan(), units()[unit]);
  }

  InlineTasks& inline_tasks() {
    if (!inline_) {
      InlineTaskOptions inline_options;
      inline_options.log_dir = run_dir().logs_path();
      // As agent_main: the environment may override both.
      inline_options.advertise_host =
          exec::advertise_host_from_environment("", control().endpoint());
      inline_options.wire_timeout = exec::wire_timeout_from_environment(options_.wire_timeout);
      inline_options.grace = options_.grace / 2;
      inline_options.log_limit = options_.log_limit;
      inline_ = std::make_unique<InlineTasks>(plan(), control().server(), inline_options);
    }
    return *inline_;
  }

  void report_inline_ends() {
    for (const auto& [id, status] : inline_->take_ended()) end_process(id, status);
  }

  const LocalRunOptions& options_;
  bool run_inline_;
  std::unique_ptr<InlineTasks> inline_;
};

}  // namespace

LaunchOutcome run_local(const LocalRunOptions& given, const core::Program& program) {
  LocalRunOptions options = given;
  LaunchOutcome refused;
  refused.kind = LaunchOutcome::Kind::Invalid;
  if (auto limit = exec::log_limit_from_environment()) {
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
    auto run_dir = RunDirectory::create(
        options.run_root.empty() ? default_run_root() : options.run_root, name);
    run_directory = run_dir.path();
    run_dir.write_file("plan.json", core::plan_to_json(*planned.plan).dump(2) + "\n");
    say("running program '" + name + "' (" + std::to_string(planned.plan->tasks.size()) +
        " tasks); run directory " + run_dir.path());
    // What agents of an earlier run that were killed left (a PMIx server's
    // and Open MPI's private directories), when this program has MPI nodes.
    for (const auto& node : planned.plan->program.nodes) {
      if (*node.framework == core::Framework::mpi) {
        base::remove_stale_scratch_dirs();
        break;
      }
    }
    LocalRun run(options, std::move(*planned.plan), std::move(run_dir));
    ControlPlaneOptions control;
    control.observed_key_prefix = core::keys::kAddressPrefix;  // peers' addresses, for tasks run inline
    return run.run(std::move(control));
  } catch (const std::exception& e) {
    LaunchOutcome failed;
    failed.run_directory = run_directory;
    failed.problems.push_back({std::string("error: ") + e.what()});
    return failed;
  }
}

}  // namespace slipway::launch
