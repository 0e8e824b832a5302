// LauncherLoop: the event loop both launchers share. It owns the
// supervisor, the in-process rendezvous (ControlPlane), signal handling
// and the unit processes (slipway-exec locally, srun steps under Slurm); a
// launcher subclass says how units are started and where.
//
// Contract: run() sets the process up first (launcher_process.hpp: the
// signals blocked before the rendezvous thread starts, a subreaper), starts
// every unit, then carries out the supervisor's actions until the program
// finishes; it returns the program's outcome (launch_outcome.hpp) after
// terminating every descendant. Signal k: the first stops the program (128 + k), the second
// kills every unit at once.
//
// A unit ends when its tasks' agents have left the rendezvous (with their
// exit statuses), when one of them vanishes and the launcher's HostLosses
// say the unit failed (host_losses.hpp), or when its carrier ends first: the
// unit ends with the carrier's status if every one of its tasks had joined
// the rendezvous, else it failed whatever that status (its tasks never ran;
// never_joined says why, e.g. srun's own messages). Where losses are heard
// (hear_losses()), a unit whose carrier ends unexpectedly with its agent
// joined and not left first waits a moment for the rendezvous's verdict on
// that agent: lost, if it comes (UnitTracker::hold). A carrier
// (unit_handle.hpp) is a child process (reaped by the loop) or a task the
// launcher runs itself (the launcher reports its end with carrier_ended()).
// One process may carry several units (a Slurm step of many tasks); it is
// then supervised per unit. Once the program has finished, processes still
// running (steps flushing their output) get a few seconds to end on their
// own before they are terminated. Sources of events besides signals and the
// rendezvous (task output, srun's stderr) are added with add_source(), and
// parts that hear child exits, key changes, notices and turns with listen()
// (loop_listener.hpp). Units start while the descriptors they hold
// (descriptor_cost, when given) fit the budget (descriptor_budget.hpp);
// the others wait, in order (launch_queue.hpp).
//
// Elastic nodes (elastic_control.hpp, docs/elastic.md): a request for a size
// (the program key scale/NODE, from `slipway scale` or a task) becomes,
// after the node's settle window, a resize the supervisor carries out; the
// loop keeps live/NODE, the live plan every start is given (live_plan())
// and the live address files (RUN/addrs/NODE.PORT, rewritten atomically
// whenever a handled node's live set or addresses change). A replica of an
// elastic node that is lost where no host has room for it
// (HostLosses::no_room_for) shrinks its node as the loss is heard, before its world's next epoch.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "address_files.hpp"
#include "elastic_control.hpp"
#include "host_losses.hpp"
#include "launch_queue.hpp"
#include "loop_listener.hpp"
#include "progress_lines.hpp"
#include "slipway/core/plan.hpp"
#include "slipway/base/event_loop.hpp"
#include "slipway/base/poll_source.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/terminal_stream.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/launch/control_plane.hpp"
#include "slipway/launch/descriptor_budget.hpp"
#include "slipway/launch/elastic_nodes.hpp"
#include "slipway/launch/launch_outcome.hpp"
#include "slipway/launch/launch_units.hpp"
#include "slipway/launch/program_observer.hpp"
#include "slipway/launch/run_counters.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/run_outcome.hpp"
#include "slipway/launch/supervisor.hpp"
#include "slipway/launch/unit_handle.hpp"
#include "slipway/launch/unit_tracker.hpp"

namespace slipway::launch {

// Sets SLIPWAY_RESUME (the run's resume count) and SLIPWAY_ARRAY_TASK (the
// Slurm array task, unset outside arrays) in this process's environment,
// which every task inherits (the only place they are set); called before a
// launcher's task runner takes its copy of the environment.
void export_run_environment(const RunDirectory& run_dir);

// What start_units throws when no host has room for a unit now: a
// replica of an elastic node then shrinks its node instead of failing.
class NoRoom : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What start_units throws when no host has room for a unit now but the
// launcher is getting one (a satellite job, docs/elastic.md): the unit
// waits, launched on this attempt but with no carrier, until the launcher
// calls host_found() (it starts then, on the same attempt) or
// host_not_found() (it ends as a NoRoom would have ended it). A stop of a
// waiting unit ends it as stopped. what() is said once, as it starts to wait.
class WaitForHost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class LauncherLoop {
 public:
  // descriptor_cost(unit): descriptors of this process a running unit holds
  // (empty: not counted).
  LauncherLoop(core::Plan plan, RunDirectory run_dir, std::chrono::milliseconds grace,
               std::function<std::size_t(std::size_t unit)> descriptor_cost = {});
  virtual ~LauncherLoop();

  // The outcome is Ran, with the program's status and every unit's result.
  LaunchOutcome run(ControlPlaneOptions control_options);

 protected:
  // The launcher's hooks: how units start, in which groups, how they are
  // signalled, what to say of a carrier that ended before its tasks
  // joined, and where a unit runs. What a launcher hears besides
  // (LoopListener) and the losses of its hosts (HostLosses) are parts of
  // their own, given with listen() and hear_losses().
  //
  // Starts `units` (attempt `attempt`) together, with `env` added to this
  // process's environment; returns their carrier. Several units only on
  // attempt 0, as launching() grouped them (one unit otherwise).
  // Throws std::exception when it cannot start (NoRoom when no host has
  // room for the unit).
  virtual UnitHandle start_units(const std::vector<std::size_t>& units, int attempt,
                                 const std::vector<std::string>& env) = 0;
  // Units about to start on `attempt` (before their start_units calls, in
  // plan order), split into the sets that would share one carrier; the
  // loop starts each unit alone on a later attempt whatever the sets.
  // Default: one each.
  virtual std::vector<std::vector<std::size_t>> launching(const std::vector<std::size_t>& units, int attempt);
  // Sends `sig` to a running unit; default: kill() of its process.
  virtual void signal_unit(std::size_t unit, UnitHandle carrier, int sig);
  // How `carrier` ended before the tasks of a unit it carried joined the
  // rendezvous (once per such unit). Default: "its process " + exit's
  // description.
  virtual std::string never_joined(UnitHandle carrier, const base::ExitStatus& exit);
  // The host `unit` runs on (or is to run on) now, for events and the
  // status: default, its host in the plan.
  virtual std::string unit_host_name(std::size_t unit) const { return plan_.hosts.at(units_[unit].host).name; }

  // Adds a listener (not owned; before run()).
  void listen(LoopListener& listener) { listeners_.push_back(&listener); }
  // The launcher's hosts can be lost (not owned; before run()).
  void hear_losses(HostLosses& losses) { losses_ = &losses; }

  // Units waiting for a host (WaitForHost): it came (the unit starts at the
  // end of this turn), or it will not (`why`: the unit ends as with
  // NoRoom(why); an elastic node's replica shrinks its node, and the node
  // does not ask for it back). Either only for a unit waiting_for_host().
  void host_found(std::size_t unit);
  void host_not_found(std::size_t unit, const std::string& why);
  bool waiting_for_host(std::size_t unit) const { return queue_->waiting_for_host(unit); }
  // The supervisor's state of the unit.
  UnitState unit_state(std::size_t unit) const;

  // Satellite slots of elastic nodes (core/satellite_slots.hpp), for a
  // launcher that can get them hosts: the elastic nodes, and how many more
  // slots each wants hosted; a satellite slot of `node` granted (`why`
  // names the job and host: the next resize's cause), returning its unit;
  // a granted slot's unit no longer wanted and ended (its satellite may
  // go); and the
  // satellites a node waits for that will not come (`why`: said to the
  // user), after which it settles for the slots it has.
  std::vector<std::string> elastic_node_names() const;
  std::uint32_t satellites_wanted(const std::string& node) const;
  std::size_t satellite_granted(const std::string& node, const std::string& why);
  std::optional<std::size_t> satellite_releasable(const std::string& node);
  void satellites_abandoned(const std::string& node, const std::string& why);

  // The carrier `carrier` (not a child process) ended with `status`: its
  // units end as a reaped child's.
  void carrier_ended(UnitHandle carrier, const base::ExitStatus& status);
  // Watched every turn until the loop ends (not owned).
  void add_source(base::PollSource& source) { loop_.add_source(source); }

  const core::Plan& plan() const { return plan_; }
  const RunDirectory& run_dir() const { return run_dir_; }
  const std::vector<LaunchUnit>& units() const { return units_; }
  // The carrier of `unit`, or none when the unit is not running.
  UnitHandle unit_carrier(std::size_t unit) const;
  // Whether `unit` is being launched (the supervisor launched it) but has
  // no carrier yet: it starts later in this turn, or waits for descriptors.
  bool unit_starting(std::size_t unit) const;
  // The epoch of the unit's world its next (or current) start belongs to
  // (0 outside worlds): what start_units passes on as SLIPWAY_EPOCH. In a
  // resumed run epochs go on from the run's last (epoch_base_).
  int unit_epoch(std::size_t unit) const;
  // The attempt a unit's tasks are told (SLIPWAY_ATTEMPT, and the attempt
  // they join the rendezvous with) for the supervisor's `attempt`: the same
  // in a first start; in a resumed run, counted on from the run's last.
  int task_attempt(int attempt) const { return attempt + attempt_base_; }
  std::size_t unit_of_task(const std::string& task_name) const;
  ControlPlane& control() { return *control_; }
  // The program as it runs now (core::live_plan of the elastic nodes' live
  // sets): what a task that starts now is told of it.
  const std::shared_ptr<const core::Plan>& live_plan() const;
  // slipway-exec's arguments for the same: "--live", "NODE=LIST" per
  // elastic node.
  std::vector<std::string> live_arguments() const;
  // How long a stop by a signal lets tasks that hear checkpoint notices run
  // after the notice (docs/resume.md); 0: no notice, the stop of old.
  void set_notice_window(std::chrono::milliseconds window) { notice_window_ = window; }
  // The event record, status and observe endpoint (program_observer.hpp);
  // set before run(). The default serves on 127.0.0.1, any free port.
  void set_observe(ObserveOptions options) { observe_options_ = std::move(options); }
  // The status document now (docs/observe.md); only while run() runs.
  observe::ProgramStatus status_now() const;
  // Adds an event to the run's record (RUN/events.jsonl): `node` empty for
  // a program-wide one. Only while run() runs.
  void record_event(const std::string& kind, const std::string& node, const std::string& cause,
                    const std::string& host = {});
  // The page's URL ("" when there is no endpoint); only while run() runs.
  std::string observe_url() const { return observer_ ? observer_->url() : std::string(); }
  bool observe_loopback() const { return !observer_ || observer_->loopback(); }
  // Whether the line that gives the page's URL also says how to reach it
  // from elsewhere (a launcher on a compute host: an ssh tunnel from the
  // login node when it listens on loopback, the view token otherwise).
  void say_how_to_reach_observe() { observe_reach_hint_ = true; }

 private:
  void carry_out(const std::vector<Action>& actions);
  void launch(const std::vector<std::size_t>& units, int attempt);
  void start_now(const std::vector<std::size_t>& units, int attempt);
  void start_queued();
  // `lost`: unit_lost() said the unit failed (said already).
  void unit_done(std::size_t unit, UnitExit exit, bool lost);
  void on_signal(int sig);
  void on_child_exit(pid_t pid, const base::ExitStatus& exit);
  void on_stop_request(const std::string& reason);
  void on_key_changed(const std::string& key);
  // The line that gives the page's URL, once the endpoint is up.
  void observe_started();
  void on_member_joined(const MemberJoined& event);
  void on_member_ended(const MemberEnded& event);
  void kill_all();
  std::vector<std::string> unit_environment() const;
  void on_scale_request(const std::string& key);
  void apply_resizes(Clock::time_point now);
  // `ended`: a unit that has ended already (not said to be stopped).
  void apply_resize(const Resize& resize, Clock::time_point now,
                    std::optional<std::size_t> ended = std::nullopt);
  // `grow_back`: the node wants the replica back once a host has room.
  bool shrink_for(std::size_t unit, const std::string& why, bool grow_back);
  // start_units found no room for `unit`: it shrinks its node, or fails.
  void ended_without_room(std::size_t unit, const std::string& why, bool grow_back);
  void publish_live(const std::string& node);
  // Publishes the next checkpoint notice; returns its deadline.
  Clock::time_point publish_notice(const std::string& reason, bool stop);
  // checkpoint/request changed: a notice (and a stop, when asked) unless
  // the program is stopping already.
  void on_checkpoint_request();
  void record_launch(const std::vector<std::size_t>& units, int attempt);
  // One event per task of `unit`.
  void record_unit_event(const std::string& kind, std::size_t unit, int attempt, const std::string& cause);
  void write_counters();

  core::Plan plan_;
  RunDirectory run_dir_;
  std::vector<LaunchUnit> units_;
  std::vector<std::size_t> unit_of_task_;  // by index in Plan::tasks
  std::chrono::milliseconds grace_;
  // Before the rendezvous (control_), whose thread posts to it: it outlives it.
  base::EventLoop loop_;
  AddressFiles address_files_;  // RUN/addrs/NODE.PORT
  std::unique_ptr<Supervisor> supervisor_;
  std::unique_ptr<ControlPlane> control_;
  std::unique_ptr<UnitTracker> tracker_;
  bool finished_ = false;
  int exit_code_ = 0;
  std::string finish_message_;
  OutcomeRecorder outcome_;  // RUN/outcome.json
  int signals_seen_ = 0;
  std::function<std::size_t(std::size_t)> descriptor_cost_;
  std::unique_ptr<LaunchQueue> queue_;  // units waiting for descriptors or a host
  std::unique_ptr<ElasticControl> elastic_;
  // A resumed run: what attempts and epochs count on from (run_counters.hpp).
  int attempt_base_ = 0;
  int epoch_base_ = 0;
  RunCounters counters_;  // each task's last attempt and epoch, as RUN/counters holds them
  bool counters_changed_ = false;
  std::chrono::milliseconds notice_window_{0};
  ObserveOptions observe_options_;
  std::unique_ptr<ProgramObserver> observer_;
  bool observe_reach_hint_ = false;
  std::vector<LoopListener*> listeners_;
  HostLosses* losses_ = nullptr;
  std::int64_t started_unix_ms_ = 0;
  std::string stop_reason_;
  std::string last_note_;             // the supervisor's last Note (a world's restart)
  std::map<int, int> recorded_epoch_; // by world: the epoch its last event named
  std::uint64_t notice_seq_ = 0;
};

}  // namespace slipway::launch
