// The Slurm controller: job steps inside an allocation (the replicas of a
// node start as one step; a resubmission is a step of its own), supervised
// per unit by the shared launcher loop; resubmission away from lost hosts
// (see slurm_controller.hpp).
#include "slipway/core/contract.hpp"
#include "slipway/core/placement.hpp"
#include "slipway/launch/slurm_controller.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "launcher_loop.hpp"
#include "slipway/core/plan_json.hpp"
#include "slipway/core/satellite_slots.hpp"
#include "slipway/base/environment.hpp"
#include "slipway/base/local_address.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/run_captured.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/base/terminal_stream.hpp"
#include "slipway/launch/run_outcome.hpp"
#include "slipway/launch/salloc_arguments.hpp"
#include "slipway/launch/satellite_jobs.hpp"
#include "slipway/launch/slurm_allocation.hpp"
#include "slipway/launch/slurm_steps.hpp"
#include "slipway/launch/srun_stderr.hpp"
#include "slipway/rendezvous/server.hpp"


namespace slipway::launch {
namespace {

// core::env::kLaunchNoGpus is set with kLaunchInSalloc when the salloc we
// ran asked for no GPU or other GRES: the job then holds none, and there is
// nothing to ask scontrol.

const auto keep_all = [](std::string_view) { return false; };

// What scontrol prints for `commands` given on its standard input, one a
// line: one process for every query (its start-up and authentication cost
// more than the queries). Empty when it fails.
std::string scontrol(const std::vector<std::string>& commands) {
  base::CaptureOptions options;
  options.argv = {"scontrol"};
  options.env = base::environment_without(keep_all);
  for (const auto& c : commands) options.input += c + "\n";
  try {
    return base::run_captured(options).out;
  } catch (const std::exception&) {
    return {};
  }
}

// What a command (sbatch, scancel) printed, and how it ended.
base::CapturedRun run_captured(std::vector<std::string> argv, std::vector<std::string> env) {
  base::CaptureOptions options;
  options.argv = std::move(argv);
  options.env = std::move(env);
  return base::run_captured(options);
}

std::string first_line(const std::string& text) { return base::first_line(text, 300); }

// A host name as a keeper reports it: Slurm node names only.
bool valid_host_name(const std::string& host) {
  if (host.empty() || host.size() > 128) return false;
  for (char c : host) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

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

class SlurmRun : public LauncherLoop {
 public:
  SlurmRun(const SlurmLaunchOptions& options, SlurmJob job, core::Plan plan, RunDirectory run_dir,
           std::optional<std::uint64_t> max_steps)
      : LauncherLoop(std::move(plan), std::move(run_dir), options.grace),
        options_(options),
        job_(std::move(job)),
        satellite_settings_(core::satellite_settings(this->plan().program)) {
    max_steps_ = max_steps;
    set_notice_window(options.notice_window);
    set_observe({observe_address(options.metrics, this->plan().program),
                 options.run_root.empty() ? default_run_root() : options.run_root});
    for (const auto& unit : units()) unit_host_.push_back(this->plan().hosts.at(unit.host).name);
    for (const auto& host : this->plan().hosts) {
      if (host.satellite) placeholders_.insert(host.name);
    }
    add_source(srun_stderr_);
    if (satellite_settings_.jobs > 0) add_source(satellite_timer_);
  }

  // Satellites pending or running end with the program.
  ~SlurmRun() override {
    for (const std::string& id : satellites_.ids()) cancel_satellite(id);
  }

 protected:
  UnitHandle start_units(const std::vector<std::size_t>& group, int attempt,
                         const std::vector<std::string>& env) override {
    if (group.size() > 1) {
      StepRequest step = step_for_units(plan(), units(), group, unit_host_);
      return UnitHandle::of_process(start_step(step, 0, unit_epoch(group.front()), env));
    }
    const std::size_t unit = group.front();
    const LaunchUnit& u = units()[unit];
    StepRequest step = step_for_unit(plan(), u);
    if (attempt > 0) wait_for_world(unit);
    const SatelliteBook::Job* satellite = satellites_.of_unit(unit);
    if (satellite && satellite->host.empty()) {  // its replacement still pends
      throw WaitForHost("waits for satellite job " + satellite->id + " (pending)");
    }
    std::string satellite_lost;
    if (satellite && lost_hosts_.count(satellite->host)) {
      satellite_lost = "its satellite job " + satellite->id + " lost its host " + satellite->host;
      cancel_satellite(satellite->id);
      unhost(unit);
      satellite = nullptr;
    }
    if (satellite) {
      step.host = satellite->host;
      step.job_id = satellite->id;
    } else if (attempt == 0 && placeholders_.count(unit_host_[unit])) {
      throw NoRoom(u.name + " has no satellite job to run in");
    } else if (attempt == 0) {
      step.host = unit_host_[unit];
    } else if (auto host = host_with_room(unit, step, false)) {
      step.host = *host;
    } else {
      // A host from the queue, or the loss ends as one without room.
      const std::string why = satellite_lost.empty() ? no_room_in_job(step) : satellite_lost;
      const auto refused = replacement_refused(unit);
      if (refused) throw NoRoom(why + *refused);
      const std::string id = submit_replacement(unit, step);
      throw WaitForHost(why + "; waiting up to " + seconds_text(satellite_settings_.wait_ms) +
                        " for satellite job " + id + " ([program.elastic] satellite_wait)");
    }
    unit_host_[unit] = step.host;
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
  std::vector<std::vector<std::size_t>> group_first_launches(
      const std::vector<std::size_t>& starting) override {
    std::vector<std::size_t> in_job;
    std::vector<std::vector<std::size_t>> groups;
    for (std::size_t unit : starting) {
      if (satellites_.of_unit(unit) || placeholders_.count(unit_host_[unit])) {
        groups.push_back({unit});  // a step of its own, in its satellite job
      } else {
        in_job.push_back(unit);
      }
    }
    for (auto& group : group_into_steps(plan(), units(), in_job, unit_host_)) groups.push_back(std::move(group));
    return groups;
  }

  // A keeper announced its satellite job (satellite/JOBID = host): the
  // node it was asked for gets a slot there.
  void key_changed(const std::string& key) override {
    if (!key.starts_with(core::keys::kSatellitePrefix)) return;
    const std::string id = key.substr(core::keys::kSatellitePrefix.size());
    const auto host = control().server().get(key);
    if (!host || !valid_host_name(*host)) return;
    const SatelliteBook::Job* job = satellites_.granted(id, *host);
    if (!job) return;  // cancelled meanwhile (scancel ends it), or not ours
    if (job->replacement) {
      // Started at the end of this turn (start_waiting).
      unit_host_[*job->unit] = *host;
      satellite_said("satellite_grant", job->node,
                     "satellite job " + id + " runs on " + *host + ": a place for " + units()[*job->unit].name +
                         ", whose host is lost",
                     *host);
      return;
    }
    const std::string node = job->node;
    const std::size_t unit = satellite_granted(node, "satellite job " + id + " granted on " + *host);
    satellites_.bind(id, unit);
    unit_host_[unit] = *host;
    satellite_said("satellite_grant", node,
                   "satellite job " + id + " runs on " + *host + ": a place for " + units()[unit].name, *host);
  }

  // Where the controller sends the unit now (a satellite job's host, or
  // the host that replaced a lost one), not the plan's placeholder.
  std::string unit_host_name(std::size_t unit) const override { return unit_host_.at(unit); }

  // A line about a satellite job, said and recorded as an event.
  void satellite_said(const std::string& kind, const std::string& node, const std::string& line,
                      const std::string& host = {}) {
    say(line);
    record_event(kind, node, line, host);
  }

  // A line for the user: the launcher's page and metrics, and how to reach
  // them from elsewhere when they listen on this host's loopback only.
  void observe_started() override {
    const std::string url = observe_url();
    if (url.empty()) return;
    if (!observe_loopback()) {
      say("page and metrics of the program: " + url + " (with the view token: docs/observe.md)");
      return;
    }
    const std::string name = base::this_host_name();
    const std::string port = url.substr(url.rfind(':') + 1, url.size() - url.rfind(':') - 2);
    say("page and metrics of the program: " + url + " on " + name + "; from the login node: ssh -N -L " + port +
        ":127.0.0.1:" + port + " " + name + ", then open http://127.0.0.1:" + port + "/");
  }

  // Satellite jobs follow what the elastic nodes want: submitted for slots
  // wanted beyond those hosted, cancelled when pending too long or no
  // longer wanted, released once their replica is retired.
  void turn_done() override {
    const auto now = SatelliteBook::Clock::now();
    const std::chrono::milliseconds wait(satellite_settings_.wait_ms);
    for (const auto& job : satellites_.expired(now, wait)) {
      cancel_satellite(job.id);
      const std::string pends = "satellite job " + job.id + " still pends after " +
                                seconds_text(satellite_settings_.wait_ms) + " ([program.elastic] satellite_wait); cancelled";
      record_event("satellite_abandon", job.node, pends);
      if (job.replacement) {
        replacement_expired(*job.unit, pends);
      } else {
        satellites_abandoned(job.node, pends);
      }
    }
    start_waiting();
    release_replacements();
    for (const std::string& node : elastic_node_names()) {
      while (auto unit = satellite_releasable(node)) {
        unhost(*unit);
        if (const SatelliteBook::Job* job = satellites_.of_unit(*unit)) {
          const std::string id = job->id, host = job->host;
          cancel_satellite(id);
          satellite_said("satellite_release", node,
                         "satellite job " + id + " on " + host + " released: " + node + " no longer runs " +
                             units()[*unit].name,
                         host);
        }
      }
      // Room in the job first, then satellite jobs.
      while (satellites_wanted(node) > 0 && host_in_job(node)) {
      }
      const std::uint32_t wanted = satellites_wanted(node);
      std::uint32_t pending = satellites_.pending_for(node);
      for (; pending > wanted; --pending) {
        const std::string id = *satellites_.newest_pending(node);
        cancel_satellite(id);
        satellite_said("satellite_release", node, "satellite job " + id + " cancelled: " + node + " no longer needs it");
      }
      for (; pending < wanted && satellites_.size() < satellite_settings_.jobs; ++pending) {
        if (!submit_satellite(node)) break;
      }
    }
  }

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
    lost_hosts_.insert(unit_host_[unit]);
    if (step) steps_with_losses_.insert(step.pid());  // none: it ended first
    say(event.task + " lost on " + unit_host_[unit] + " (" + event.reason + "); host marked lost");
    return true;
  }

  // srun may report a task killed with its host (or its agent) before the
  // agent's connection is heard to drop: such a unit still counts as lost.
  bool hears_losses() const override { return true; }

  // As start_units would find it: a satellite's unit has room while its
  // satellite's host is not lost; any other, where host_with_room finds a
  // host. A replica outside a world that may wait for a satellite job has
  // room to come: its node does not shrink at once (a world's does, and
  // grows back).
  std::optional<std::string> no_room_for(std::size_t unit) override {
    std::optional<std::string> why;
    if (const SatelliteBook::Job* satellite = satellites_.of_unit(unit)) {
      if (satellite->host.empty()) return std::nullopt;  // it waits for its satellite job
      if (!lost_hosts_.count(satellite->host)) return std::nullopt;
      why = "its satellite job " + satellite->id + " lost its host";
    } else if (placeholders_.count(unit_host_[unit])) {
      why = units()[unit].name + " has no satellite job to run in";
    } else {
      const StepRequest step = step_for_unit(plan(), units()[unit]);
      if (host_with_room(unit, step, false)) return std::nullopt;
      why = no_room_in_job(step);
    }
    if (units()[unit].world < 0 && !replacement_refused(unit)) return std::nullopt;
    return why;
  }

  // The world's lost rank takes over the host of the slot its node gave
  // up (elastic_nodes.hpp); that slot, on the lost host now, waits for a
  // satellite job or room in the job to grow back into.
  void slot_unhosted(std::size_t lost, std::size_t unhosted) override {
    if (lost != unhosted) {
      std::swap(unit_host_[lost], unit_host_[unhosted]);
      satellites_.swap_units(lost, unhosted);
    }
    if (const SatelliteBook::Job* job = satellites_.of_unit(unhosted)) {
      const std::string id = job->id, host = job->host;
      cancel_satellite(id);
      say("satellite job " + id + " on " + host + " released: its host is lost");
    }
    unhost(unhosted);
  }

  // A step whose units have all ended but which lost one waits for Slurm to
  // notice the host (SlurmdTimeout): cancel it now.
  void carrier_drained(UnitHandle step) override {
    if (steps_with_losses_.erase(step.pid())) ::kill(step.pid(), SIGKILL);
  }

  void process_ended(pid_t pid, const base::ExitStatus&) override {
    live_steps_.erase(pid);
    steps_with_losses_.erase(pid);
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
    live_steps_[pid] = Reservation{in_job ? step.host : "job " + step.job_id, step.cpus * step.tasks,
                                   step.gpus * step.tasks};
    return pid;
  }

 private:
  // sbatch of one satellite job for a replica of `node`; false (said why)
  // when Slurm refused it.
  bool submit_satellite(const std::string& node) {
    const SatelliteRequest request = satellite_request(node);
    std::string why;
    const auto id = sbatch_satellite(request, why);
    if (!id) {
      record_event("satellite_abandon", node, "no satellite job: " + why);
      satellites_abandoned(node, "no satellite job: " + why);
      return false;
    }
    satellites_.submitted(*id, node, SatelliteBook::Clock::now());
    satellite_said("satellite_request", node,
                   node + ": asked Slurm for satellite job " + *id + " (1 host, " + std::to_string(request.cpus) +
                       " cpus" + (request.gpus ? ", " + std::to_string(request.gpus) + " gpus" : std::string()) +
                       ") for one more replica");
    return true;
  }

  // A satellite job for one replica of `node`.
  SatelliteRequest satellite_request(const std::string& node) const {
    const core::NodeSpec& spec = *plan().program.find_node(node);
    SatelliteRequest request;
    request.program = *plan().program.name;
    request.node = node;
    request.slipway_path = options_.self_path;
    request.log_path = run_dir().logs_path() + "/satellite-%j.log";
    request.cpus = spec.cpus.value;
    request.gpus = spec.gpus.value;
    request.mem_mb = spec.mem_mb.value;
    request.partition = !spec.partition.value.empty() ? spec.partition.value
                                                      : job_.components.front().partition;
    request.account = spec.account.value;
    request.qos = spec.qos.value;
    request.constraint = spec.constraint.value;
    return request;
  }

  // sbatch of a satellite job: its id, or nothing (`why` says why).
  std::optional<std::string> sbatch_satellite(const SatelliteRequest& request, std::string& why) {
    std::vector<std::string> env = base::environment_without(satellite_drops_variable);
    env.push_back(std::string(core::env::kRunDir) + "=" + run_dir().path());
    try {
      base::CapturedRun sbatch = run_captured(satellite_sbatch_command(request), std::move(env));
      if (auto id = parse_job_id(sbatch.out); id && sbatch.exit.success()) return id;
      why = "sbatch " + sbatch.exit.describe() + ": " + first_line(sbatch.err.empty() ? sbatch.out : sbatch.err);
    } catch (const std::exception& e) {
      why = std::string("cannot run sbatch: ") + e.what();
    }
    return std::nullopt;
  }

  void cancel_satellite(const std::string& id) {
    satellites_.remove(id);
    try {
      base::CapturedRun scancel = run_captured({"scancel", id}, base::environment_without(keep_all));
      if (!scancel.exit.success()) {
        say("scancel " + id + " " + scancel.exit.describe() + ": " + first_line(scancel.err));
      }
    } catch (const std::exception& e) {
      say("cannot cancel satellite job " + id + ": " + e.what());
    }
  }

  int het_group_of(const std::string& host) const {
    for (const auto& component : job_.components) {
      for (const auto& h : component.hosts) {
        if (h == host) return component.het_group;
      }
    }
    return -1;
  }

  std::string no_room_in_job(const StepRequest& step) const {
    std::string lost;
    for (const auto& h : lost_hosts_) lost += (lost.empty() ? "" : ", ") + h;
    return "no host of job " + job_.job_id + " has room for " + step.unit_name + " (" +
           std::to_string(step.cpus) + " cpus, " + std::to_string(step.gpus) + " gpus)" +
           (lost.empty() ? "" : "; lost hosts: " + lost);
  }

  // A host of the job with room for `unit` now (what running steps and
  // starting units hold leaves room), or, unless `now_only`, once the steps
  // of ended units have finished: where a resubmitted unit goes, by the
  // planner's rule (core::host_for_relaunch). Slurm holds a step's CPUs
  // until all of its tasks have ended, so a host has room now when the
  // steps still running leave room; failing that, a host where the units
  // still running leave room will have it once the steps of ended units
  // finish (srun waits for it). Units starting in the same turn without a
  // step yet (a world's new epoch; replicas an elastic node adds, bound to
  // their planned hosts) and units between attempts count on the host they
  // had; units waiting for a satellite job count nowhere.
  std::optional<std::string> host_with_room(std::size_t unit, const StepRequest& step, bool now_only) {
    std::map<std::string, core::HostDemand> held, used;
    for (const auto& [pid, step_held] : live_steps_) {
      held[step_held.host].cpus += step_held.cpus;
      held[step_held.host].gpus += step_held.gpus;
    }
    for (std::size_t u = 0; u < units().size(); ++u) {
      // A unit between attempts (its backoff, its world restarting) starts
      // again on its host: its room is taken.
      const bool starting = unit_starting(u) || unit_state(u) == UnitState::Backoff;
      if (u == unit || (!unit_carrier(u) && !starting)) continue;
      if (satellites_.of_unit(u) || placeholders_.count(unit_host_[u])) continue;  // not the job's hosts
      StepRequest other = step_for_unit(plan(), units()[u]);
      used[unit_host_[u]].cpus += other.cpus;
      used[unit_host_[u]].gpus += other.gpus;
      if (starting) {
        held[unit_host_[u]].cpus += other.cpus;
        held[unit_host_[u]].gpus += other.gpus;
      }
    }
    const core::HostDemand need{step.cpus, step.gpus};
    std::set<std::string> excluded = lost_hosts_;
    excluded.insert(placeholders_.begin(), placeholders_.end());
    for (const auto* taken : {&held, &used}) {
      if (now_only && taken == &used) break;
      if (auto host = core::host_for_relaunch(plan(), unit_host_[unit], need, *taken, excluded)) return host;
    }
    return std::nullopt;
  }

  // A slot `node` wants hosted finds room in the job itself (a node that
  // finished, or shrank, left it): hosted there, with no satellite job.
  bool host_in_job(const std::string& node) {
    const auto slots = plan().tasks_of(node);
    for (const core::Task* task : slots) {
      const std::size_t unit = unit_of_task(task->name());
      if (!placeholders_.count(unit_host_[unit]) || satellites_.of_unit(unit)) continue;
      // The next slot to be hosted is the lowest placeholder one.
      const auto host = host_with_room(unit, step_for_unit(plan(), units()[unit]), true);
      if (!host) return false;
      const std::size_t granted = satellite_granted(node, "room on " + *host + " of job " + job_.job_id);
      unit_host_[granted] = *host;
      say(node + ": room on " + *host + " of job " + job_.job_id + " for " + units()[granted].name +
          " (no satellite job needed)");
      return true;
    }
    return false;
  }

  // The placeholder host of a unit that has none (a slot held for a
  // satellite job, a unit whose host is lost): "satellite:UNIT", as the
  // plan names the hosts of satellite slots.
  void unhost(std::size_t unit) {
    unit_host_[unit] = "satellite:" + units()[unit].name;
    placeholders_.insert(unit_host_[unit]);
  }

  static std::string seconds_text(std::uint32_t ms) {
    return std::to_string(ms / 1000) + (ms % 1000 ? "." + std::to_string(ms % 1000 / 100) : "") + " s";
  }

  // Why `unit`, with no host that has room, may not wait for a satellite
  // job (text to add to the no-room line; empty: nothing to add), or
  // nothing when it may.
  std::optional<std::string> replacement_refused(std::size_t unit) {
    const LaunchUnit& u = units()[unit];
    const core::Task& task = plan().tasks[u.tasks.front()];
    const core::NodeSpec& node = plan().node(task);
    if (satellite_settings_.jobs == 0) {
      if (node.replicas.value.elastic() || lost_hosts_.empty()) return std::string();  // it shrinks, or says it runs its MIN
      return "; a satellite job could replace its lost host ([program.elastic] satellites), or a spare "
             "host in the job (e.g. srun -N" + std::to_string(job_hosts() + 1) + ")";
    }
    // An elastic world above MIN shrinks now, and grows back later.
    if (u.tasks.size() == 1 && node.replicas.value.elastic() && forms_world(node.framework.value) &&
        live_plan()->tasks_of(task.node).size() > node.replicas.value.min) {
      return std::string();
    }
    if (no_more_satellites_.count(unit)) {
      return "; its satellite job did not start within satellite_wait before, so no other is asked for";
    }
    if (satellites_.size() >= satellite_settings_.jobs) {
      return "; every satellite job [program.elastic] satellites = " + std::to_string(satellite_settings_.jobs) +
             " allows is in use (raise it to replace more lost hosts)";
    }
    return std::nullopt;
  }

  // Asks Slurm for a satellite job for `unit`, whose host is lost; its id.
  // Throws NoRoom when Slurm refuses it.
  std::string submit_replacement(std::size_t unit, const StepRequest& step) {
    const core::Task& task = plan().tasks[units()[unit].tasks.front()];
    SatelliteRequest request = satellite_request(task.node);
    request.cpus = step.cpus;
    request.gpus = step.gpus;
    request.mem_mb = step.mem_mb;
    std::string why;
    const auto id = sbatch_satellite(request, why);
    if (!id) throw NoRoom(no_room_in_job(step) + "; no satellite job: " + why);
    satellites_.submitted_for(*id, task.node, unit, SatelliteBook::Clock::now());
    unhost(unit);
    satellite_said("satellite_request", task.node,
                   task.node + ": asked Slurm for satellite job " + *id + " (1 host, " +
                       std::to_string(request.cpus) + " cpus" +
                       (request.gpus ? ", " + std::to_string(request.gpus) + " gpus" : std::string()) + ") for " +
                       units()[unit].name + ", whose host is lost");
    return *id;
  }

  // A unit of a world starts only with its world: while a unit of it
  // waits for a host (or is about to: starting this turn with none, a
  // satellite job to come), it waits too.
  void wait_for_world(std::size_t unit) {
    const int world = units()[unit].world;
    if (world < 0) return;
    for (std::size_t mate = 0; mate < units().size(); ++mate) {
      if (mate == unit || units()[mate].world != world || !unit_starting(mate)) continue;
      const SatelliteBook::Job* job = satellites_.of_unit(mate);
      bool waits = job && job->host.empty();
      if (!waits && !job && (lost_hosts_.count(unit_host_[mate]) || placeholders_.count(unit_host_[mate]))) {
        // Starting later this turn: it will wait when no host has room.
        waits = !host_with_room(mate, step_for_unit(plan(), units()[mate]), false) && !replacement_refused(mate);
      } else if (!waits && job && lost_hosts_.count(job->host)) {
        waits = !replacement_refused(mate);
      }
      if (!waits) continue;
      held_for_[unit] = mate;
      throw WaitForHost("waits for a host for " + units()[mate].name + " (its world starts as a whole)");
    }
  }

  // Waiting units whose host came: a replacement granted, room in the job
  // again (its pending satellite job is cancelled), a world mate's host.
  void start_waiting() {
    for (auto it = held_for_.begin(); it != held_for_.end();) {
      const auto [unit, mate] = *it;
      if (!waiting_for_host(unit)) {
        it = held_for_.erase(it);
      } else if (!waiting_for_host(mate)) {
        it = held_for_.erase(it);
        host_found(unit);
      } else {
        ++it;
      }
    }
    std::vector<std::pair<std::size_t, std::string>> jobs;  // replacements: unit, id
    for (const auto& [id, job] : satellites_.jobs()) {
      if (job.replacement && waiting_for_host(*job.unit)) jobs.emplace_back(*job.unit, id);
    }
    for (const auto& [unit, id] : jobs) {
      const SatelliteBook::Job& job = satellites_.jobs().at(id);
      if (!job.host.empty()) {
        host_found(unit);
        continue;
      }
      const auto host = host_with_room(unit, step_for_unit(plan(), units()[unit]), true);
      if (!host) continue;
      cancel_satellite(id);
      unit_host_[unit] = *host;
      say(units()[unit].name + ": room on " + *host + " of job " + job_.job_id + " again; satellite job " + id +
          " cancelled");
      host_found(unit);
    }
  }

  // A replacement that pended too long: the unit ends as a loss without
  // room (and asks for no other).
  void replacement_expired(std::size_t unit, const std::string& pends) {
    no_more_satellites_.insert(unit);
    const core::Task& task = plan().tasks[units()[unit].tasks.front()];
    const core::NodeSpec& node = plan().node(task);
    const std::string partition = !node.partition.value.empty() ? node.partition.value
                                                                : job_.components.front().partition;
    host_not_found(unit, pends + ": no host for replica " + std::to_string(task.replica) + " of node " +
                             task.node + ", whose host is lost; free a host of partition " + partition +
                             ", raise [program.elastic] satellite_wait, or give the job a spare host (e.g. srun -N" +
                             std::to_string(job_hosts() + 1) + ")");
  }

  std::size_t job_hosts() const {
    std::size_t n = 0;
    for (const auto& component : job_.components) n += component.hosts.size();
    return n;
  }

  // Replacements whose unit no longer runs nor will (it finished, failed
  // for good, was stopped or retired) are cancelled.
  void release_replacements() {
    std::vector<std::string> gone;
    for (const auto& [id, job] : satellites_.jobs()) {
      if (!job.replacement) continue;
      const std::size_t unit = *job.unit;
      if (waiting_for_host(unit) || unit_carrier(unit) || unit_starting(unit) ||
          unit_state(unit) == UnitState::Backoff) {
        continue;
      }
      const std::string in_job = "job " + id;
      if (std::any_of(live_steps_.begin(), live_steps_.end(),
                      [&](const auto& step) { return step.second.host == in_job; })) {
        continue;  // its step still ends
      }
      gone.push_back(id);
    }
    for (const std::string& id : gone) {
      const SatelliteBook::Job job = satellites_.jobs().at(id);
      cancel_satellite(id);
      say("satellite job " + id + (job.host.empty() ? "" : " on " + job.host) + " released: " +
          units()[*job.unit].name + " no longer needs it");
    }
  }

  const SlurmLaunchOptions& options_;
  SlurmJob job_;
  std::optional<std::uint64_t> max_steps_;  // Slurm's MaxStepCount, when scontrol said it
  std::uint64_t steps_started_ = 0;         // steps this controller started in the job
  core::SatelliteSettings satellite_settings_;
  SatelliteBook satellites_;
  std::set<std::string> placeholders_;  // the plan's hosts held for satellites
  DeadlineSource satellite_timer_{
      [this] { return satellites_.deadline(std::chrono::milliseconds(satellite_settings_.wait_ms)); }};
  std::vector<std::string> unit_host_;
  std::set<std::string> lost_hosts_;
  std::set<std::size_t> no_more_satellites_;   // units whose replacement pended too long
  std::map<std::size_t, std::size_t> held_for_;  // a world's unit waiting -> the mate it waits for
  std::set<pid_t> steps_with_losses_;
  struct Reservation {
    std::string host;
    std::uint32_t cpus = 0;
    std::uint32_t gpus = 0;
  };
  std::map<pid_t, Reservation> live_steps_;  // what each running step holds
  SrunStderr srun_stderr_{base::terminal_stderr()};
  // Slurm's lines of the step reaped last (process_ended comes right
  // before the loop ends that step's units).
  pid_t ended_step_ = -1;
  std::string ended_step_messages_;
};

LaunchOutcome launch_error(const std::string& message) {
  LaunchOutcome failed;
  failed.problems.push_back({message});
  return failed;
}

std::atomic<pid_t> salloc_child{0};

void pass_on_to_salloc(int sig) {
  if (const pid_t pid = salloc_child.load(); pid > 0) ::kill(pid, sig);
}

// Outside an allocation: run this same command under salloc and wait for
// it. salloc exits 0 when its command is killed by a signal, so the
// controller leaves its exit status in a verdict file (--verdict-file): none
// there means it died without one (SIGKILL, a crash), a failure, never a
// success. The terminal's SIGINT and SIGQUIT reach salloc and the
// controller themselves (one process group); SIGTERM and SIGHUP sent to us
// are passed on to salloc, which revokes the allocation (and so does our
// death).
LaunchOutcome run_under_salloc(const SlurmLaunchOptions& options, const core::Program& program) {
  if (std::getenv(core::env::kLaunchInSalloc)) {
    return launch_error("error: salloc ran us without an allocation (SLURM_JOB_ID is not set)");
  }
  std::vector<std::string> argv{"salloc"};
  auto args = salloc_arguments(program, options.srun_args);
  if (requests_gres(args)) {
    unsetenv(core::env::kLaunchNoGpus);
  } else {
    setenv(core::env::kLaunchNoGpus, "1", 1);
  }
  for (auto& a : args) argv.push_back(std::move(a));
  argv.insert(argv.end(), {options.self_path, "launch", "--grace",
                           std::to_string(options.grace.count() / 1000.0), "--wire-timeout",
                           std::to_string(options.wire_timeout.count() / 1000.0)});
  if (!options.run_root.empty()) argv.insert(argv.end(), {"--run-root", options.run_root});
  if (!options.metrics.empty()) argv.insert(argv.end(), {"--metrics", options.metrics});
  const char* tmp = std::getenv("TMPDIR");
  std::string verdict = std::string(tmp && *tmp ? tmp : "/tmp") + "/slipway-verdict-XXXXXX";
  {
    base::UniqueFd fd(::mkstemp(verdict.data()));
    if (!fd) return launch_error("error: cannot make a verdict file " + verdict + ": " + std::strerror(errno));
  }
  argv.insert(argv.end(), {"--verdict-file", verdict});
  argv.push_back(options.topology_path);
  setenv(core::env::kLaunchInSalloc, "1", 1);
  base::SpawnOptions spawn;
  spawn.argv = std::move(argv);
  spawn.env = base::environment_without(keep_all);
  spawn.new_process_group = false;
  // Killed ourselves (the `srun` pid a user may kill -9): salloc revokes
  // the allocation, as it did when it ran in our place.
  spawn.parent_death_signal = SIGTERM;
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  signal(SIGTERM, pass_on_to_salloc);
  signal(SIGHUP, pass_on_to_salloc);
  base::ExitStatus exit;
  try {
    salloc_child = base::spawn(spawn);
    int status = 0;
    while (::waitpid(salloc_child, &status, 0) < 0 && errno == EINTR) {
    }
    exit = base::ExitStatus::from_wait_status(status);
  } catch (const std::exception& e) {
    ::unlink(verdict.c_str());
    return launch_error(std::string("error: cannot run salloc: ") + e.what());
  }
  std::ifstream in(verdict);
  int code = -1;
  const bool has_verdict = static_cast<bool>(in >> code);
  ::unlink(verdict.c_str());
  LaunchOutcome outcome;
  outcome.kind = LaunchOutcome::Kind::Ran;
  if (has_verdict) {
    outcome.program_status = code;  // the controller said how the program ended
  } else if (!exit.success()) {
    outcome.program_status = exit.shell_code();  // salloc's own failure, which it reported
  } else {
    outcome.kind = LaunchOutcome::Kind::Error;
    outcome.problems.push_back(
        {"the program's controller (slipway launch, run by salloc) ended without saying how the "
         "program ended: it was killed or crashed; the allocation was released and its tasks "
         "ended with it"});
  }
  return outcome;
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
    SlurmRun run(options, std::move(*job), std::move(*planned.plan), std::move(run_dir), max_steps);
    return run.run(std::move(control));
  } catch (const std::exception& e) {
    LaunchOutcome failed = launch_error(std::string("error: ") + e.what());
    failed.run_directory = run_directory;
    write_error_outcome(run_directory, *program.name, failed.problems.back().message);
    return failed;
  }
}

}  // namespace slipway::launch
