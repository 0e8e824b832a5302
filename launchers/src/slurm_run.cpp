// SlurmRun: the launcher loop's hooks for job steps inside an allocation
// (slurm_run.hpp). It starts units as srun steps and says where each goes,
// delegating where units run to the step ledger and satellite jobs to the
// satellite controller.
#include "slurm_run.hpp"

#include <signal.h>

#include <functional>

#include "launcher_loop.hpp"
#include "satellite_controller.hpp"
#include "slipway/base/environment.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/terminal_stream.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/launch/satellite_jobs.hpp"
#include "slipway/launch/slurm_steps.hpp"
#include "slipway/launch/srun_stderr.hpp"
#include "slipway/rendezvous/server.hpp"
#include "step_ledger.hpp"

namespace slipway::launch {
namespace {

// A deadline for the loop to come round by, and nothing to watch.
class DeadlineSource : public base::PollSource {
 public:
  explicit DeadlineSource(std::function<std::optional<Clock::time_point>()> next) : next_(std::move(next)) {}
  void watch(std::vector<pollfd>&) override {}
  void watched(const pollfd*, std::size_t) override {}
  std::optional<Clock::time_point> deadline() const override { return next_(); }

 private:
  std::function<std::optional<Clock::time_point>()> next_;
};

// The controller hears the losses of its hosts (HostLosses: the step
// ledger's verdicts) and, besides its units' lives (LoopListener), the
// steps' ends, the keepers' announcements of satellite jobs and each turn.
class SlurmRun : public LauncherLoop, private HostLosses, private LoopListener {
 public:
  SlurmRun(const SlurmLaunchOptions& options, SlurmJob job, core::Plan plan, RunDirectory run_dir,
           std::optional<std::uint64_t> max_steps)
      : LauncherLoop(std::move(plan), std::move(run_dir), options.grace),
        options_(options),
        job_(std::move(job)),
        max_steps_(max_steps),
        ledger_(this->plan(), units(), job_.job_id, [this](std::size_t unit) { return holding(unit); }),
        loop_for_satellites_(*this),
        satellites_(this->plan(), units(), job_, this->run_dir(), options.self_path, ledger_, loop_for_satellites_) {
    set_notice_window(options.notice_window);
    set_observe({observe_address(options.metrics, this->plan().program),
                 options.run_root.empty() ? default_run_root() : options.run_root});
    say_how_to_reach_observe();
    add_source(srun_stderr_);
    if (satellites_.enabled()) add_source(satellite_timer_);
    hear_losses(*this);
    listen(*this);
  }

  // Satellites pending or running end with the program.
  ~SlurmRun() override { satellites_.cancel_all(); }

 protected:
  UnitHandle start_units(const std::vector<std::size_t>& group, int attempt,
                         const std::vector<std::string>& env) override {
    if (group.size() > 1) {
      StepRequest step = step_for_units(plan(), units(), group, ledger_.hosts());
      return UnitHandle::of_process(start_step(step, 0, unit_epoch(group.front()), env));
    }
    const std::size_t unit = group.front();
    const LaunchUnit& u = units()[unit];
    StepRequest step = step_for_unit(plan(), u);
    if (attempt > 0) satellites_.wait_for_world(unit);
    const SatelliteBook::Job* satellite = satellites_.of_unit(unit);
    if (satellite && satellite->host.empty()) {  // its replacement still pends
      throw WaitForHost("waits for satellite job " + satellite->id + " (pending)");
    }
    std::string satellite_lost;
    if (satellite && ledger_.lost(satellite->host)) {
      satellite_lost = "its satellite job " + satellite->id + " lost its host " + satellite->host;
      satellites_.cancel(satellite->id);
      ledger_.unhost(unit);
      satellite = nullptr;
    }
    if (satellite) {
      step.host = satellite->host;
      step.job_id = satellite->id;
    } else if (attempt == 0 && ledger_.unhosted(unit)) {
      throw NoRoom(u.name + " has no satellite job to run in");
    } else if (attempt == 0) {
      step.host = ledger_.host(unit);
    } else if (auto host = ledger_.host_with_room(unit, step, false)) {
      step.host = *host;
    } else {
      // A host from the queue, or the loss ends as one without room.
      satellites_.wait_for_replacement(unit, step, satellite_lost);
    }
    ledger_.set_host(unit, step.host);
    for (std::uint32_t task : u.tasks) {
      step.agent_argv.push_back("--task");
      step.agent_argv.push_back(plan().tasks[task].name());
    }
    const pid_t srun = start_step(step, attempt, unit_epoch(unit), env);
    if (attempt > 0) say(u.name + ": new step on " + step.host);
    return UnitHandle::of_process(srun);
  }

  // Replicas of one node on one host starting together share a step (one
  // srun instead of one per replica); each task reports through the
  // rendezvous.
  std::vector<std::vector<std::size_t>> launching(const std::vector<std::size_t>& starting, int) override {
    std::vector<std::size_t> in_job;
    std::vector<std::vector<std::size_t>> groups;
    for (std::size_t unit : starting) {
      if (satellites_.of_unit(unit) || ledger_.unhosted(unit)) {
        groups.push_back({unit});  // a step of its own, in its satellite job
      } else {
        in_job.push_back(unit);
      }
    }
    for (auto& group : group_into_steps(plan(), units(), in_job, ledger_.hosts())) groups.push_back(std::move(group));
    return groups;
  }

  // A keeper announced its satellite job (satellite/JOBID = host).
  void key_changed(const std::string& key) override {
    if (!key.starts_with(core::keys::kSatellitePrefix)) return;
    const std::string id = key.substr(core::keys::kSatellitePrefix.size());
    if (const auto host = control().server().get(key)) satellites_.announced(id, *host);
  }

  // Where the controller sends the unit now (a satellite job's host, or
  // the host that replaced a lost one), not the plan's placeholder.
  std::string unit_host_name(std::size_t unit) const override { return ledger_.host(unit); }

  void turn_done() override { satellites_.turn_done(); }

  // srun turns SIGTERM into SIGKILL for its tasks: a graceful stop goes
  // through the rendezvous instead, and a kill through srun.
  void signal_unit(std::size_t unit, UnitHandle step, int sig) override {
    if (sig == SIGKILL) {
      ::kill(step.pid(), SIGTERM);
      return;
    }
    for (std::uint32_t t : units()[unit].tasks) {
      const core::Task& task = plan().tasks[t];
      control().stop_task(task.node, task.replica, "stopped by the launcher");
    }
  }

  // The agent vanished without leaving: its host (or its step) is gone,
  // and srun would wait for Slurm to notice. The unit has failed now and
  // is resubmitted away from that host.
  bool unit_lost(std::size_t unit, UnitHandle step, const MemberEnded& event) override {
    ledger_.lose_host_of(unit);
    if (step) ledger_.step_lost_a_unit(step.pid());  // none: it ended first
    say(event.task + " lost on " + ledger_.host(unit) + " (" + event.reason + "); host marked lost");
    return true;
  }

  // srun may report a task killed with its host (or its agent) before the
  // agent's connection is heard to drop: such a unit still counts as lost
  // (the loop waits for the verdict once it hears losses).

  // As start_units would find it: a satellite's unit has room while its
  // satellite's host is not lost; any other, where host_with_room finds a
  // host. A replica outside a world that may wait for a satellite job has
  // room to come: its node does not shrink at once (a world's does, and
  // grows back).
  std::optional<std::string> no_room_for(std::size_t unit) override {
    std::optional<std::string> why;
    if (const SatelliteBook::Job* satellite = satellites_.of_unit(unit)) {
      if (satellite->host.empty()) return std::nullopt;  // it waits for its satellite job
      if (!ledger_.lost(satellite->host)) return std::nullopt;
      why = "its satellite job " + satellite->id + " lost its host";
    } else if (ledger_.unhosted(unit)) {
      why = units()[unit].name + " has no satellite job to run in";
    } else {
      const StepRequest step = step_for_unit(plan(), units()[unit]);
      if (ledger_.host_with_room(unit, step, false)) return std::nullopt;
      why = ledger_.no_room_in_job(step);
    }
    if (units()[unit].world < 0 && !satellites_.replacement_refused(unit)) return std::nullopt;
    return why;
  }

  // The world's lost rank takes over the host of the slot its node gave
  // up (elastic_nodes.hpp); that slot, on the lost host now, waits for a
  // satellite job or room in the job to grow back into.
  void slot_unhosted(std::size_t lost, std::size_t unhosted) override {
    if (lost != unhosted) ledger_.swap_hosts(lost, unhosted);
    satellites_.slot_unhosted(lost, unhosted);
    ledger_.unhost(unhosted);
  }

  // A step whose units have all ended but which lost one waits for Slurm to
  // notice the host (SlurmdTimeout): cancel it now.
  void carrier_drained(UnitHandle step) override {
    if (ledger_.take_step_with_losses(step.pid())) ::kill(step.pid(), SIGKILL);
  }

  void process_ended(pid_t pid, const base::ExitStatus&) override {
    ledger_.step_ended(pid);
    ended_step_ = pid;
    ended_step_messages_ = srun_stderr_.ended(pid);
  }

  // srun exits 0 when Slurm could not launch a step's tasks (e.g. "task 0
  // launch failed: Plugin initialization failed"): say what srun said.
  std::string never_joined(UnitHandle step, const base::ExitStatus& exit) override {
    std::string slurm = step.pid() == ended_step_ ? ended_step_messages_ : std::string();
    return "its job step ended before the task joined the program (srun " + exit.describe() +
           (slurm.empty() ? std::string() : ": " + slurm) + ")";
  }

 private:
  // What the satellite controller asks of this loop.
  class LoopForSatellites final : public SatelliteLoop {
   public:
    explicit LoopForSatellites(SlurmRun& run) : run_(run) {}
    std::vector<std::string> elastic_node_names() const override { return run_.elastic_node_names(); }
    std::uint32_t satellites_wanted(const std::string& node) const override { return run_.satellites_wanted(node); }
    std::size_t satellite_granted(const std::string& node, const std::string& why) override {
      return run_.satellite_granted(node, why);
    }
    std::optional<std::size_t> satellite_releasable(const std::string& node) override {
      return run_.satellite_releasable(node);
    }
    void satellites_abandoned(const std::string& node, const std::string& why) override {
      run_.satellites_abandoned(node, why);
    }
    bool waiting_for_host(std::size_t unit) const override { return run_.waiting_for_host(unit); }
    void host_found(std::size_t unit) override { run_.host_found(unit); }
    void host_not_found(std::size_t unit, const std::string& why) override { run_.host_not_found(unit, why); }
    bool unit_starting(std::size_t unit) const override { return run_.unit_starting(unit); }
    bool unit_active(std::size_t unit) const override {
      return run_.unit_carrier(unit) || run_.unit_starting(unit) || run_.unit_state(unit) == UnitState::Backoff;
    }
    std::size_t unit_of_task(const std::string& task_name) const override { return run_.unit_of_task(task_name); }
    const core::Plan& live_plan() const override { return *run_.live_plan(); }
    void record_event(const std::string& kind, const std::string& node, const std::string& cause,
                      const std::string& host) override {
      run_.record_event(kind, node, cause, host);
    }

   private:
    SlurmRun& run_;
  };

  // What `unit` holds of its host, for the ledger's host_with_room: a unit
  // between attempts (its backoff, its world restarting) starts again on
  // its host, so its room is taken; one in a satellite job holds none of
  // the job's hosts.
  StepLedger::Holding holding(std::size_t unit) const {
    const bool starting = unit_starting(unit) || unit_state(unit) == UnitState::Backoff;
    if (!unit_carrier(unit) && !starting) return StepLedger::Holding::nothing;
    if (satellites_.of_unit(unit)) return StepLedger::Holding::nothing;
    return starting ? StepLedger::Holding::starting : StepLedger::Holding::running;
  }

  pid_t start_step(StepRequest& step, int attempt, int epoch, const std::vector<std::string>& env) {
    // A step in a satellite job has its job id already.
    const bool in_job = step.job_id.empty();
    if (in_job) {
      // Slurm refuses the job's step past MaxStepCount; say so first, and why.
      if (max_steps_ && steps_started_ >= *max_steps_) {
        throw NoRoom("job " + job_.job_id + " has started " + std::to_string(steps_started_) +
                     " job steps, the most this cluster allows a job (MaxStepCount " + std::to_string(*max_steps_) +
                     "): no step is left for " + step.unit_name);
      }
      ++steps_started_;
      step.job_id = job_.job_id;
      step.het_group = het_group_of(step.host);
    }
    std::vector<std::string> agent{options_.exec_path, "--slurm-step", "--plan", run_dir().plan_path(), "--attempt",
                                   std::to_string(task_attempt(attempt)), "--epoch", std::to_string(epoch),
                                   "--log-dir", run_dir().logs_path(),
                                   "--grace-ms", std::to_string(options_.grace.count() / 2),
                                   "--wire-timeout-ms", std::to_string(options_.wire_timeout.count())};
    for (const std::string& arg : live_arguments()) agent.push_back(arg);
    step.agent_argv.insert(step.agent_argv.begin(), agent.begin(), agent.end());
    base::SpawnOptions spawn;
    spawn.argv = srun_command(step);
    // A satellite's step takes nothing of the allocation's SLURM_* variables.
    spawn.env = base::environment_without([in_job](std::string_view entry) {
      return step_drops_variable(entry) || (!in_job && satellite_drops_variable(entry));
    });
    spawn.env.insert(spawn.env.end(), env.begin(), env.end());
    for (auto& entry : step_environment(step)) spawn.env.push_back(std::move(entry));
    spawn.new_process_group = true;
    spawn.parent_death_signal = SIGTERM;  // srun forwards it to the step
    base::UniqueFd stderr_write = srun_stderr_.open();
    spawn.stderr_fd = stderr_write.get();
    pid_t pid = base::spawn(spawn);
    srun_stderr_.adopt(pid);
    ledger_.step_started(pid, step, in_job);
    return pid;
  }

  int het_group_of(const std::string& host) const {
    for (const auto& component : job_.components) {
      for (const auto& h : component.hosts) {
        if (h == host) return component.het_group;
      }
    }
    return -1;
  }

  const SlurmLaunchOptions& options_;
  SlurmJob job_;
  std::optional<std::uint64_t> max_steps_;  // Slurm's MaxStepCount, when known
  std::uint64_t steps_started_ = 0;         // steps this controller started in the job
  StepLedger ledger_;
  LoopForSatellites loop_for_satellites_;
  SatelliteController satellites_;
  DeadlineSource satellite_timer_{[this] { return satellites_.deadline(); }};
  SrunStderr srun_stderr_{base::terminal_stderr()};
  // Slurm's lines of the step reaped last (process_ended comes right
  // before the loop ends that step's units).
  pid_t ended_step_ = -1;
  std::string ended_step_messages_;
};

}  // namespace

LaunchOutcome run_in_job(const SlurmLaunchOptions& options, SlurmJob job, core::Plan plan, RunDirectory run_dir,
                         std::optional<std::uint64_t> max_steps, ControlPlaneOptions control) {
  SlurmRun run(options, std::move(job), std::move(plan), std::move(run_dir), max_steps);
  return run.run(std::move(control));
}

}  // namespace slipway::launch
