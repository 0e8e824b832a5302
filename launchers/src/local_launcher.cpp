// The local launcher: plan on this host, run the rendezvous in-process,
// start a slipway-exec per launch unit and carry out the supervisor's
// decisions (see local_launcher.hpp).
#include "slipway/launch/local_launcher.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <map>
#include <mutex>

#include "slipway/core/plan_json.hpp"
#include "slipway/core/topology.hpp"
#include "slipway/exec/line_prefixer.hpp"
#include "slipway/exec/process.hpp"
#include "slipway/exec/unique_fd.hpp"
#include "slipway/launch/control_plane.hpp"
#include "slipway/launch/launch_units.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/supervisor.hpp"

extern char** environ;

namespace slipway::launch {
namespace {

using std::chrono::milliseconds;
using exec::UniqueFd;

void say(const std::string& message) {
  exec::write_all(STDERR_FILENO, "slipway: " + message + "\n");
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    default: return "a signal";
  }
}

class LocalRun {
 public:
  LocalRun(const LocalRunOptions& options, core::Plan plan, RunDirectory run_dir)
      : options_(options),
        plan_(std::move(plan)),
        run_dir_(std::move(run_dir)),
        units_(launch_units(plan_)) {}

  int run();

 private:
  void carry_out(const std::vector<Action>& actions);
  void launch(std::size_t unit, int attempt);
  void on_signals();
  std::vector<std::string> exec_environment() const;

  const LocalRunOptions& options_;
  core::Plan plan_;
  RunDirectory run_dir_;
  std::vector<LaunchUnit> units_;
  std::unique_ptr<Supervisor> supervisor_;
  std::unique_ptr<ControlPlane> control_;
  UniqueFd signals_;
  UniqueFd stop_event_;
  std::mutex stop_mutex_;
  std::string stop_reason_;
  std::map<pid_t, std::size_t> running_;  // exec pid -> unit
  std::vector<pid_t> unit_pid_;
  bool finished_ = false;
  int exit_code_ = 0;
  int signals_seen_ = 0;
};

std::vector<std::string> LocalRun::exec_environment() const {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    if (entry.rfind("SLIPWAY_RDZV=", 0) == 0 || entry.rfind("SLIPWAY_TOKEN=", 0) == 0) continue;
    env.push_back(std::move(entry));
  }
  env.push_back("SLIPWAY_RDZV=" + control_->endpoint());
  env.push_back("SLIPWAY_TOKEN=" + control_->token());
  env.push_back("SLIPWAY_RUN_DIR=" + run_dir_.path());
  return env;
}

void LocalRun::launch(std::size_t unit_index, int attempt) {
  const LaunchUnit& unit = units_[unit_index];
  exec::SpawnOptions spawn;
  spawn.argv = {options_.exec_path, "--plan", run_dir_.plan_path(), "--attempt",
                std::to_string(attempt), "--log-dir", run_dir_.logs_path(), "--grace-ms",
                std::to_string(options_.grace.count() / 2), "--wire-timeout-ms",
                std::to_string(options_.wire_timeout.count())};
  for (std::uint32_t task : unit.tasks) {
    spawn.argv.push_back("--task");
    spawn.argv.push_back(plan_.tasks[task].name());
  }
  spawn.env = exec_environment();
  spawn.new_process_group = true;  // Ctrl-C reaches the launcher only
  spawn.parent_death_signal = SIGTERM;
  if (attempt > 0) say("restarting " + unit.name + " (attempt " + std::to_string(attempt) + ")");
  try {
    pid_t pid = exec::spawn(spawn);
    running_[pid] = unit_index;
    unit_pid_[unit_index] = pid;
  } catch (const std::exception& e) {
    say(unit.name + ": " + e.what());
    carry_out(supervisor_->task_exited(unit_index, TaskExit{false, 127}, Clock::now()));
  }
}

void LocalRun::carry_out(const std::vector<Action>& actions) {
  for (const Action& action : actions) {
    switch (action.kind) {
      case Action::Kind::Launch:
        launch(action.task, action.attempt);
        break;
      case Action::Kind::Signal:
        if (pid_t pid = unit_pid_[action.task]; pid > 0) ::kill(pid, action.signal);
        break;
      case Action::Kind::Finish:
        finished_ = true;
        exit_code_ = action.exit_code;
        if (action.exit_code != 0 && !action.message.empty()) {
          say("program '" + *plan_.program.name + "' failed: " + action.message);
        } else if (!action.message.empty()) {
          say("program '" + *plan_.program.name + "' " +
              (action.exit_code == 0 ? "finished: " : "stopped: ") + action.message);
        }
        break;
    }
  }
}

void LocalRun::on_signals() {
  signalfd_siginfo info{};
  while (read(signals_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    int sig = static_cast<int>(info.ssi_signo);
    if (sig == SIGCHLD) {
      int status = 0;
      pid_t pid;
      while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        auto it = running_.find(pid);
        if (it == running_.end()) continue;  // an orphan we subreaped
        std::size_t unit = it->second;
        running_.erase(it);
        unit_pid_[unit] = -1;
        auto exit = exec::ExitStatus::from_wait_status(status);
        TaskExit task_exit{exit.signaled, exit.code};
        if (!exit.success() && !finished_) {
          say(units_[unit].name + " " + exit.describe() + " (log: " + run_dir_.logs_path() + "/" +
              plan_.tasks[units_[unit].tasks.front()].name() + ".log)");
        }
        carry_out(supervisor_->task_exited(unit, task_exit, Clock::now()));
      }
      continue;
    }
    if (++signals_seen_ > 1) {
      say("second " + std::string(signal_name(sig)) + ": killing every task now");
      for (auto& [pid, unit] : running_) ::kill(pid, SIGKILL);
      continue;
    }
    say(std::string("received ") + signal_name(sig) + ", stopping the program (again to kill now)");
    control_->announce_stop(std::string("launcher received ") + signal_name(sig));
    carry_out(supervisor_->stop_requested(std::string("interrupted by ") + signal_name(sig),
                                          128 + sig, Clock::now()));
  }
}

int LocalRun::run() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&set, sig);
  sigprocmask(SIG_BLOCK, &set, nullptr);  // before any thread starts
  signals_.reset(signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  stop_event_.reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  exec::become_subreaper();

  ControlPlaneOptions control_options;
  control_options.on_stop_request = [this](const std::string& reason) {
    {
      std::lock_guard lock(stop_mutex_);
      stop_reason_ = reason;
    }
    std::uint64_t one = 1;
    ssize_t ignored = ::write(stop_event_.get(), &one, sizeof one);
    (void)ignored;
  };
  control_ = std::make_unique<ControlPlane>(std::move(control_options));
  for (const auto& node : plan_.program.nodes) {
    control_->declare(*node.name, static_cast<std::uint32_t>(plan_.tasks_of(*node.name).size()));
  }
  run_dir_.write_contact({control_->endpoint(), control_->token(), getpid()});

  std::vector<SupervisedTaskSpec> specs;
  for (const LaunchUnit& unit : units_) specs.push_back({unit.name, unit.daemon, unit.max_retries});
  SupervisorOptions supervisor_options;
  supervisor_options.grace = options_.grace;
  supervisor_ = std::make_unique<Supervisor>(std::move(specs), supervisor_options);
  unit_pid_.assign(units_.size(), -1);

  carry_out(supervisor_->start(Clock::now()));
  while (!finished_) {
    int timeout = -1;
    if (auto deadline = supervisor_->next_deadline()) {
      auto left = std::chrono::duration_cast<milliseconds>(*deadline - Clock::now()).count();
      timeout = static_cast<int>(std::clamp<long long>(left, 0, 60000));
    }
    pollfd fds[2] = {{signals_.get(), POLLIN, 0}, {stop_event_.get(), POLLIN, 0}};
    if (poll(fds, 2, timeout) < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) on_signals();
    if (fds[1].revents & POLLIN) {
      std::uint64_t count;
      ssize_t ignored = read(stop_event_.get(), &count, sizeof count);
      (void)ignored;
      std::string reason;
      {
        std::lock_guard lock(stop_mutex_);
        reason = stop_reason_;
      }
      say("stop requested: " + reason);
      control_->announce_stop(reason);
      carry_out(supervisor_->stop_requested(reason, 0, Clock::now()));
    }
    carry_out(supervisor_->tick(Clock::now()));
  }
  // Nothing of the program outlives the launcher.
  exec::terminate_descendants(milliseconds(2000));
  run_dir_.write_exit(exit_code_);
  control_.reset();
  return exit_code_;
}

}  // namespace

int run_local(const LocalRunOptions& options) {
  auto topology = core::load_topology(options.topology_path);
  if (!topology.ok()) {
    for (const auto& d : topology.diagnostics) {
      exec::write_all(STDERR_FILENO, core::format_diagnostic(d) + "\n");
    }
    return 2;
  }
  auto planned = core::make_plan(*topology.program, core::local_allocation(options.allocation));
  if (!planned.ok()) {
    say("program '" + *topology.program->name + "' does not fit on this machine:");
    for (const auto& e : planned.errors) exec::write_all(STDERR_FILENO, "  " + e.message + "\n");
    say("lower cpus/gpus/mem or replicas, or pass --cpus-per-host/--gpus-per-host/--hosts");
    return 2;
  }
  try {
    auto run_dir = RunDirectory::create(
        options.run_root.empty() ? default_run_root() : options.run_root, *planned.plan->program.name);
    run_dir.write_file("plan.json", core::plan_to_json(*planned.plan).dump(2) + "\n");
    say("running program '" + *planned.plan->program.name + "' (" +
        std::to_string(planned.plan->tasks.size()) + " tasks); run directory " + run_dir.path());
    LocalRun run(options, std::move(*planned.plan), std::move(run_dir));
    return run.run();
  } catch (const std::exception& e) {
    say(std::string("error: ") + e.what());
    return 1;
  }
}

}  // namespace slipway::launch
