// LauncherLoop: the event loop both launchers share. It owns the
// supervisor, the in-process rendezvous (ControlPlane), signal handling
// and the unit processes (slipway-exec locally, srun steps under Slurm); a
// launcher subclass says how units are started and where.
//
// Contract: run() blocks SIGCHLD/SIGINT/SIGTERM/SIGHUP/SIGQUIT first (before
// the rendezvous thread starts), makes the launcher a subreaper, starts
// every unit, then carries out the supervisor's actions until the program
// finishes; it returns the program's outcome (launch_outcome.hpp) after
// terminating every descendant. Signal k: the first stops the program (128 + k), the second
// kills every unit at once.
//
// A unit ends when its tasks' agents have left the rendezvous (with their
// exit statuses), when one of them vanishes and the launcher says the unit
// failed (unit_lost), or when its process exits first: the unit ends with
// the process's status if every one of its tasks had joined the
// rendezvous, else it failed whatever that status (its tasks never ran;
// never_joined says why, e.g. srun's own messages). One process may carry several units (a
// Slurm step of many tasks); it is then supervised per unit. A launcher
// may also run a unit with no process of its own (the local launcher runs
// plain tasks in-process): start_units then returns an id that is no pid
// (above kMaxPid), and the launcher ends it with end_process(). Once the
// program has finished, processes still running (steps flushing their
// output) get a few seconds to end on their own before they are terminated.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/launch/control_plane.hpp"
#include "slipway/launch/launch_outcome.hpp"
#include "slipway/launch/launch_units.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/supervisor.hpp"
#include "slipway/launch/unit_tracker.hpp"

namespace slipway::launch {

// Writes "slipway: MESSAGE" on stderr: the launchers' progress lines (what
// they start, restart, lose, and how the program finished, when it does).
void say(const std::string& message);

class LauncherLoop {
 public:
  LauncherLoop(core::Plan plan, RunDirectory run_dir, std::chrono::milliseconds grace);
  virtual ~LauncherLoop();

  // The outcome is Ran, with the program's status and every unit's result.
  LaunchOutcome run(ControlPlaneOptions control_options);

 protected:
  // Starts `units` (attempt `attempt`) as one process, with `env` added to
  // this process's environment; returns the pid of the process that runs
  // them. Several units only on attempt 0, as group_first_launches split
  // them (one unit otherwise). Throws std::exception when it cannot start.
  virtual pid_t start_units(const std::vector<std::size_t>& units, int attempt,
                            const std::vector<std::string>& env) = 0;
  // Units about to start on `attempt` (before their start_units calls).
  virtual void launching(const std::vector<std::size_t>& /*units*/, int /*attempt*/) {}
  // Units starting together on their first attempt (in plan order), split
  // into the sets that share one process; default: one process each.
  virtual std::vector<std::vector<std::size_t>> group_first_launches(
      const std::vector<std::size_t>& units);
  // A running unit's agent vanished from the rendezvous without leaving
  // (`pid`: the process carrying the unit). Returns whether the unit has
  // failed now; otherwise it ends with its process. Default: false (a local
  // agent that died is reaped with its real status).
  virtual bool unit_lost(std::size_t /*unit*/, pid_t /*pid*/, const MemberEnded& /*event*/) {
    return false;
  }
  // How the process `pid` ended before the tasks of a unit it carried
  // joined the rendezvous (called after process_ended, once per such unit;
  // for end_process too). Default: "its process " + exit's description.
  virtual std::string never_joined(pid_t pid, const base::ExitStatus& exit);
  // Every unit of a still running process has ended.
  virtual void process_drained(pid_t /*pid*/) {}
  // A child process was reaped (any child: a unit's process or an orphan),
  // before the loop ends the units it carried.
  virtual void process_ended(pid_t /*pid*/, const base::ExitStatus& /*status*/) {}
  // Descriptors to watch besides signals and wakeups: watch() adds them
  // each turn of the loop, watched() gets the same entries back after
  // poll, and own_deadline() is when the loop must come round at the latest
  // for the launcher's own time-outs. Called every turn.
  virtual void watch(std::vector<pollfd>& /*fds*/) {}
  virtual void watched(const pollfd* /*fds*/, std::size_t /*count*/) {}
  virtual std::optional<Clock::time_point> own_deadline() const { return std::nullopt; }
  // A key under ControlPlaneOptions::observed_key_prefix changed (set the
  // prefix in the options given to run()).
  virtual void key_changed(const std::string& /*key*/) {}
  // The process `pid` ended with `status`: for an id start_units returned
  // that is no child process; ends its units as a reaped child's.
  void end_process(pid_t pid, const base::ExitStatus& status);
  // Sends `sig` to a running unit.
  virtual void signal_unit(std::size_t unit, pid_t pid, int sig);
  // How many of this process's descriptors a running `unit` holds (its
  // output pipes, log, held ports, rendezvous connection). Units start only
  // while their sum stays within the soft limit on open files (less a
  // reserve); the others wait, in order, for running ones to end (one line
  // says so). 0 (the default): not counted.
  virtual std::size_t descriptors_of(std::size_t /*unit*/) const { return 0; }

  const core::Plan& plan() const { return plan_; }
  const RunDirectory& run_dir() const { return run_dir_; }
  const std::vector<LaunchUnit>& units() const { return units_; }
  // The process carrying `unit`, or -1 when the unit is not running.
  pid_t unit_pid(std::size_t unit) const;
  std::size_t unit_of_task(const std::string& task_name) const;
  ControlPlane& control() { return *control_; }

 private:
  void carry_out(const std::vector<Action>& actions);
  void launch(const std::vector<std::size_t>& units, int attempt);
  void start_now(const std::vector<std::size_t>& units, int attempt);
  bool take_descriptors(std::size_t unit);
  void release_descriptors(std::size_t unit);
  void note_descriptor_budget(std::size_t unit);
  void start_queued();
  bool drop_queued(std::size_t unit);
  void unit_done(std::size_t unit, TaskExit exit, bool quiet);
  void on_signals();
  void on_wakeup();
  void on_member_joined(const MemberJoined& event);
  void on_member_ended(const MemberEnded& event);
  void kill_all();
  std::vector<std::string> unit_environment() const;

  core::Plan plan_;
  RunDirectory run_dir_;
  std::vector<LaunchUnit> units_;
  std::chrono::milliseconds grace_;
  std::unique_ptr<Supervisor> supervisor_;
  std::unique_ptr<ControlPlane> control_;
  base::UniqueFd signals_;
  base::UniqueFd wakeup_;
  // From the rendezvous thread, in the order they happened (a stop request
  // comes before the leaves of the tasks it stopped).
  std::mutex queue_mutex_;
  struct KeyChanged {
    std::string key;
  };
  std::deque<std::variant<std::string, MemberJoined, MemberEnded, KeyChanged>> events_;
  std::unique_ptr<UnitTracker> tracker_;
  bool finished_ = false;
  int exit_code_ = 0;
  std::string finish_message_;
  int signals_seen_ = 0;
  // Units waiting for descriptors (descriptors_of), in launch order.
  struct QueuedLaunch {
    std::size_t unit;
    int attempt;
  };
  std::deque<QueuedLaunch> queued_;
  std::vector<std::size_t> charged_;  // per unit: descriptors it holds now
  std::size_t descriptors_in_use_ = 0;
  std::size_t descriptor_budget_ = 0;
  std::size_t descriptor_limit_ = 0;
  bool budget_said_ = false;
};

}  // namespace slipway::launch
