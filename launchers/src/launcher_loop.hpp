// LauncherLoop: the event loop both launchers share. It owns the
// supervisor, the in-process rendezvous (ControlPlane), signal handling
// and the unit processes (slipway-exec locally, srun under Slurm); a
// launcher subclass says how a unit is started and where.
//
// Contract: run() blocks SIGCHLD/SIGINT/SIGTERM/SIGHUP/SIGQUIT first (before
// the rendezvous thread starts), makes the launcher a subreaper, starts
// every unit, then carries out the supervisor's actions until the program
// finishes; it returns the program's exit status after terminating every
// descendant. Signal k: the first stops the program (128 + k), the second
// kills every unit at once.
#pragma once

#include <sys/types.h>

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/exec/process.hpp"
#include "slipway/exec/unique_fd.hpp"
#include "slipway/launch/control_plane.hpp"
#include "slipway/launch/launch_units.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/supervisor.hpp"

namespace slipway::launch {

// Writes "slipway: MESSAGE" on stderr.
void say(const std::string& message);

// Loads and validates a topology; on problems writes each as
// FILE:LINE:COL: message on stderr and returns nothing.
std::optional<core::Program> load_or_report(const std::string& path);

class LauncherLoop {
 public:
  LauncherLoop(core::Plan plan, RunDirectory run_dir, std::chrono::milliseconds grace);
  virtual ~LauncherLoop();

  int run(ControlPlaneOptions control_options);

 protected:
  // Starts unit `unit` (attempt `attempt`) with `env` added to this
  // process's environment; returns the pid of the process whose exit ends
  // the unit. Throws std::exception when it cannot start.
  virtual pid_t start_unit(std::size_t unit, int attempt, const std::vector<std::string>& env) = 0;
  // A unit's process ended (before the supervisor hears of it).
  virtual void unit_ended(std::size_t /*unit*/, const exec::ExitStatus& /*status*/) {}
  // A task's agent left or vanished (from the rendezvous thread's queue).
  virtual void member_ended(const MemberEnded& /*event*/) {}
  // Sends `sig` to a running unit.
  virtual void signal_unit(std::size_t unit, pid_t pid, int sig);

  const core::Plan& plan() const { return plan_; }
  const RunDirectory& run_dir() const { return run_dir_; }
  const std::vector<LaunchUnit>& units() const { return units_; }
  pid_t unit_pid(std::size_t unit) const { return unit_pid_[unit]; }
  std::size_t unit_of_task(const std::string& task_name) const;
  ControlPlane& control() { return *control_; }

 private:
  void carry_out(const std::vector<Action>& actions);
  void launch(std::size_t unit, int attempt);
  void on_signals();
  void on_wakeup();
  std::vector<std::string> unit_environment() const;

  core::Plan plan_;
  RunDirectory run_dir_;
  std::vector<LaunchUnit> units_;
  std::chrono::milliseconds grace_;
  std::unique_ptr<Supervisor> supervisor_;
  std::unique_ptr<ControlPlane> control_;
  exec::UniqueFd signals_;
  exec::UniqueFd wakeup_;
  std::mutex queue_mutex_;
  std::deque<std::string> stop_requests_;
  std::deque<MemberEnded> ended_members_;
  std::map<pid_t, std::size_t> running_;
  std::vector<pid_t> unit_pid_;
  bool finished_ = false;
  int exit_code_ = 0;
  int signals_seen_ = 0;
};

}  // namespace slipway::launch
