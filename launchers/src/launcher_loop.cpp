// LauncherLoop: the run's set-up and end, its turns (base::EventLoop),
// signals, stop requests and key changes heard, and the supervisor's
// actions carried out; shared by the local launcher and the Slurm
// controller. The units' lives, the elastic nodes and the run's record are
// in launcher_units.cpp, launcher_elastic.cpp and launcher_record.cpp.
#include "launcher_loop.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "launcher_process.hpp"
#include "slipway/core/checkpoint_notice.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/base/terminal_stream.hpp"
#include "slipway/rendezvous/printable.hpp"
#include "slipway/rendezvous/server.hpp"

namespace slipway::launch {
namespace {

using std::chrono::milliseconds;

// How long, after the program finished, processes still running may take
// to end on their own before they are terminated.
constexpr milliseconds kLinger{5000};
// How long, at the very end, a reader that stalled may keep the launcher
// waiting for the last lines (a signal ends the wait).
constexpr milliseconds kFinalFlush{5000};
// Descriptors kept out of the task budget: the rendezvous's listener and
// clients (`slipway status`/`stop`), logs being rotated, signals, ...
constexpr std::size_t kReservedDescriptors = 64;

// What the launcher handles itself (read from the loop's signalfd).
const std::vector<int> kLauncherSignals = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: return "a signal";
  }
}

}  // namespace

LauncherLoop::LauncherLoop(core::Plan plan, RunDirectory run_dir, std::chrono::milliseconds grace,
                           std::function<std::size_t(std::size_t)> descriptor_cost)
    : plan_(std::move(plan)),
      run_dir_(std::move(run_dir)),
      units_(launch_units(plan_)),
      unit_of_task_(unit_of_each_task(units_, plan_.tasks.size())),
      grace_(grace),
      loop_(kLauncherSignals),
      address_files_(plan_.program, run_dir_,
                     [this](const std::vector<std::string>& keys) { return control_->server().get_many(keys); }),
      descriptor_cost_(std::move(descriptor_cost)) {}

LauncherLoop::~LauncherLoop() = default;

std::size_t LauncherLoop::unit_of_task(const std::string& task_name) const {
  const auto parsed = core::parse_task_name(task_name);
  const core::Task* task = parsed ? plan_.find_task(parsed->node, parsed->replica) : nullptr;
  // Only the name as the plan writes it ("w.01" is no task).
  if (task == nullptr || task->name() != task_name) return units_.size();
  return unit_of_task_[static_cast<std::size_t>(task - plan_.tasks.data())];
}

std::vector<std::string> LauncherLoop::unit_environment() const {
  return {std::string(core::env::kRendezvous) + "=" + control_->endpoint(), std::string(core::env::kToken) + "=" + control_->token(),
          std::string(core::env::kRunDir) + "=" + run_dir_.path()};
}

namespace {
// 64 hex digits, as rendezvous::generate_token() makes a secret.
bool is_token(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}
}  // namespace

void export_run_environment(const RunDirectory& run_dir) {
  ::setenv(core::env::kResume, std::to_string(run_dir.resume_count()).c_str(), 1);
  const char* array_task = std::getenv("SLURM_ARRAY_TASK_ID");
  if (array_task && *array_task && std::getenv("SLURM_ARRAY_JOB_ID")) {
    ::setenv(core::env::kArrayTask, array_task, 1);
  } else {
    ::unsetenv(core::env::kArrayTask);
  }
}

void LauncherLoop::signal_unit(std::size_t, UnitHandle carrier, int sig) {
  if (carrier.is_process()) ::kill(carrier.pid(), sig);
}

UnitHandle LauncherLoop::unit_carrier(std::size_t unit) const { return tracker_->carrier_of(unit); }

bool LauncherLoop::unit_starting(std::size_t unit) const {
  return supervisor_->unit(unit).state == UnitState::Running && !tracker_->carrier_of(unit) &&
         !tracker_->held(unit);
}

int LauncherLoop::unit_epoch(std::size_t unit) const {
  return supervisor_->unit(unit).epoch + (units_[unit].world >= 0 ? epoch_base_ : 0);
}

std::vector<std::vector<std::size_t>> LauncherLoop::launching(const std::vector<std::size_t>& units, int) {
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t u : units) groups.push_back({u});
  return groups;
}

UnitState LauncherLoop::unit_state(std::size_t unit) const { return supervisor_->unit(unit).state; }

void LauncherLoop::carry_out(const std::vector<Action>& actions) {
  // First launches that come together may share a process: gather them.
  std::vector<std::size_t> first_launches;
  auto flush = [&] {
    if (first_launches.empty()) return;
    auto batch = std::move(first_launches);
    first_launches.clear();
    launch(batch, 0);
  };
  for (const Action& action : actions) {
    if (action.kind == Action::Kind::Launch && action.attempt == 0) {
      first_launches.push_back(action.unit);
      continue;
    }
    flush();
    switch (action.kind) {
      case Action::Kind::Launch:
        if (supervisor_->exit_expected(action.unit)) {
          // Overtaken while these actions were carried out (its world
          // resized on a unit that found no room): it ends unstarted.
          carry_out(supervisor_->unit_exited(action.unit, UnitExit{true, SIGTERM}, Clock::now()));
          break;
        }
        launch({action.unit}, action.attempt);
        break;
      case Action::Kind::Signal:
        if (UnitHandle carrier = tracker_->carrier_of(action.unit)) {
          signal_unit(action.unit, carrier, action.signal);
        } else if (action.signal != SIGCONT && queue_->drop(action.unit)) {
          // Never started (waiting for descriptors): it ends as stopped.
          carry_out(supervisor_->unit_exited(action.unit, UnitExit{true, action.signal},
                                             Clock::now()));
        }
        break;
      case Action::Kind::Note:
        say(action.message);
        last_note_ = action.message;
        break;
      case Action::Kind::Finish: {
        finished_ = true;
        exit_code_ = action.exit_code;
        finish_message_ = action.message;
        record_event("program_end", "", action.message + " (exit status " + std::to_string(action.exit_code) + ")");
        const std::string program = "program '" + *plan_.program.name + "' ";
        if (action.exit_code == 0) {
          say(program + "finished: " + action.message);
        } else if (action.exit_code == 1) {
          say(program + "failed: " + action.message);
        } else {
          say(program + "stopped: " + action.message);
        }
        break;
      }
    }
  }
  flush();
}

void LauncherLoop::kill_all() {
  for (auto [carrier, unit] : tracker_->carriers()) signal_unit(unit, carrier, SIGKILL);
}

void LauncherLoop::on_child_exit(pid_t pid, const base::ExitStatus& exit) {
  for (LoopListener* listener : listeners_) listener->process_ended(pid, exit);
  carrier_ended(UnitHandle::of_process(pid), exit);  // nothing for an orphan
}

void LauncherLoop::on_signal(int sig) {
  if (signals_seen_ == 0 && supervisor_->stopping() && !finished_ && notice_seq_ > 0) {
    // Stopping after a notice a task asked for (Slurm signalled the
    // steps first): this signal is the same stop, not a second one.
    ++signals_seen_;
    say("received " + std::string(signal_name(sig)) + ": the program is stopping already (again to kill now)");
    return;
  }
  if (++signals_seen_ > 1 || finished_) {
    say("second " + std::string(signal_name(sig)) + ": killing every task now");
    kill_all();
    return;
  }
  stop_reason_ = std::string("interrupted by ") + signal_name(sig);
  record_event("stop", "", stop_reason_);
  if (notice_window_.count() > 0) {
    const std::string why = sig == SIGUSR1 || sig == SIGUSR2
                                ? std::string("the time limit is near (") + signal_name(sig) + ")"
                                : std::string("the launcher received ") + signal_name(sig);
    const auto deadline = publish_notice(why, true);
    char window[32];
    std::snprintf(window, sizeof window, "%.1f", static_cast<double>(notice_window_.count()) / 1000.0);
    say(std::string("received ") + signal_name(sig) + ", stopping the program: checkpoint notice " +
        std::to_string(notice_seq_) + " to every task, " + window +
        " s for those that hear notices (again to kill now)");
    carry_out(supervisor_->stop_with_notice(std::string("interrupted by ") + signal_name(sig), 128 + sig,
                                            deadline, Clock::now()));
    return;
  }
  say(std::string("received ") + signal_name(sig) + ", stopping the program (again to kill now)");
  control_->announce_stop(std::string("launcher received ") + signal_name(sig));
  carry_out(supervisor_->stop_requested(std::string("interrupted by ") + signal_name(sig),
                                        128 + sig, Clock::now()));
}

void LauncherLoop::on_stop_request(const std::string& asked) {
  // Whoever asked chose the reason: escaped before it reaches our output.
  const std::string reason = rendezvous::printable(asked);
  say("stop requested: " + reason);
  if (!supervisor_->stopping()) {
    stop_reason_ = reason;
    record_event("stop", "", reason);
  }
  control_->announce_stop(reason);
  carry_out(supervisor_->stop_requested(reason, 0, Clock::now()));
}

void LauncherLoop::on_key_changed(const std::string& key) {
  if (key.starts_with(core::keys::kScalePrefix)) {
    on_scale_request(key);
    return;
  }
  if (key == core::keys::kCheckpointRequest) {
    on_checkpoint_request();
    return;
  }
  if (key.starts_with(core::keys::kAddressPrefix)) {
    const std::size_t begin = core::keys::kAddressPrefix.size();
    // Written once for everything the rendezvous said so far, as soon as
    // heard (posted work that posts runs in the same turn, before the
    // turn's sources): a task runner's task that waits for its handles'
    // files finds them as it heard them.
    if (address_files_.changed(key.substr(begin, key.find('/', begin) - begin))) {
      loop_.post([this] { address_files_.write_changed(*elastic_->live_plan()); });
    }
  }
  for (LoopListener* listener : listeners_) listener->key_changed(key);
}

LaunchOutcome LauncherLoop::run(ControlPlaneOptions control_options) {
  prepare_launcher_process(kLauncherSignals);
  // The rendezvous's thread posts what it hears to the loop, in the order
  // it happened (a stop request comes before the leaves of the tasks it
  // stopped).
  loop_.on_signal([this](int sig) { on_signal(sig); });
  loop_.on_child_exit([this](pid_t pid, const base::ExitStatus& exit) { on_child_exit(pid, exit); });
  control_options.on_stop_request = [this](const std::string& reason) {
    loop_.post([this, reason] { on_stop_request(reason); });
  };
  control_options.on_member_joined = [this](const MemberJoined& event) {
    loop_.post([this, event] { on_member_joined(event); });
  };
  control_options.on_member_ended = [this](const MemberEnded& event) {
    loop_.post([this, event] { on_member_ended(event); });
  };
  // Requests for sizes, and peers' addresses when some node handles
  // another (the live address files).
  auto& prefixes = control_options.observed_key_prefixes;
  for (std::string_view prefix : {core::keys::kScalePrefix, core::keys::kAddressPrefix, core::keys::kCheckpointRequest}) {
    if (prefix == core::keys::kAddressPrefix && !address_files_.any()) continue;
    if (std::find(prefixes.begin(), prefixes.end(), prefix) == prefixes.end()) prefixes.emplace_back(prefix);
  }
  control_options.on_key_changed = [this](const std::string& key) {
    loop_.post([this, key] { on_key_changed(key); });
  };
  if (run_dir_.resume_count() > 0) {
    // The run's secret outlives its starts: items a task signed with it
    // (replay queues) are read after the resume (docs/resume.md).
    if (auto before = read_contact(run_dir_.path()); before && is_token(before->token)) {
      control_options.token = before->token;
    }
  }
  control_ = std::make_unique<ControlPlane>(std::move(control_options));
  for (const auto& node : plan_.program.nodes) {
    control_->declare(*node.name, static_cast<std::uint32_t>(plan_.tasks_of(*node.name).size()));
  }
  elastic_ = std::make_unique<ElasticControl>(plan_, units_);
  for (const auto& node : plan_.program.nodes) {
    publish_live(*node.name);
    address_files_.write(*node.name, *elastic_->live_plan());  // each file exists before any task starts
  }
  run_dir_.write_contact({control_->endpoint(), control_->token(), getpid()});
  {
    using namespace std::chrono;
    started_unix_ms_ = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  }
  observer_ = std::make_unique<ProgramObserver>(
      run_dir_.path(), *plan_.program.name, observe_options_,
      [this](const std::string& key, const std::string& value) { control_->server().put(key, value); });
  if (run_dir_.resume_count() > 0) {
    record_event("resume", "", "resume " + std::to_string(run_dir_.resume_count()) + " of run " + run_dir_.path());
  } else {
    record_event("program_start", "",
                 std::to_string(plan_.tasks.size()) + (plan_.tasks.size() == 1 ? " task on " : " tasks on ") +
                     std::to_string(plan_.hosts.size()) + (plan_.hosts.size() == 1 ? " host" : " hosts"));
  }
  observe_started();
  {
    std::vector<std::string> nodes;
    for (const auto& node : plan_.program.nodes) nodes.push_back(*node.name);
    run_dir_.make_task_directories(nodes);
  }
  if (run_dir_.resume_count() > 0) {
    // Attempts and epochs go on from the run's last ones (docs/resume.md).
    counters_ = read_counters(run_dir_.path());
    for (const auto& [name, c] : counters_) {
      attempt_base_ = std::max(attempt_base_, c.attempt + 1);
      epoch_base_ = std::max(epoch_base_, c.epoch + 1);
    }
  }

  std::vector<SupervisedUnitSpec> specs;
  for (const LaunchUnit& unit : units_) {
    SupervisedUnitSpec spec{unit.name, unit.daemon, unit.max_retries, unit.world};
    const core::Task& first = plan_.tasks[unit.tasks.front()];
    spec.hears_notice = core::hears_notices(plan_.node(first));
    spec.idle = elastic_->starts_idle(static_cast<std::size_t>(&unit - units_.data()));
    specs.push_back(std::move(spec));
  }
  SupervisorOptions supervisor_options;
  supervisor_options.grace = grace_;
  supervisor_ = std::make_unique<Supervisor>(std::move(specs), supervisor_options);
  std::vector<std::size_t> tasks_per_unit;
  for (const LaunchUnit& unit : units_) tasks_per_unit.push_back(unit.tasks.size());
  tracker_ = std::make_unique<UnitTracker>(std::move(tasks_per_unit));
  queue_ = std::make_unique<LaunchQueue>(DescriptorBudget::measure(units_.size(), kReservedDescriptors),
                                         descriptor_cost_);

  carry_out(supervisor_->start(Clock::now()));
  std::optional<Clock::time_point> linger_until;
  while (true) {
    if (finished_) {
      // Processes whose units all ended (steps flushing their last output)
      // end on their own in a moment; wait a little for them.
      if (!tracker_->any_carrier()) break;
      if (!linger_until) linger_until = Clock::now() + kLinger;
      if (Clock::now() >= *linger_until) break;
    }
    std::optional<Clock::time_point> deadline =
        finished_ ? linger_until : supervisor_->next_deadline();
    if (!finished_) {
      for (auto own : {tracker_->next_deadline(), elastic_->nodes().next_deadline(),
                       std::optional<Clock::time_point>(observer_->next_deadline())}) {
        if (own && (!deadline || *own < *deadline)) deadline = own;
      }
    }
    // Stop requests first (posted work): a task that exits because of a
    // stop must find the program already stopping, not count as a failure
    // (the rendezvous tells the launcher of a stop before it tells any
    // task). Output before exits, so that a task's last lines come before
    // the launcher's word on how it ended.
    if (!loop_.turn(deadline)) break;
    // Held exits with no verdict in time end as their carriers did.
    for (auto& [unit, exit] : tracker_->expired(Clock::now())) unit_done(unit, std::move(exit), false);
    carry_out(supervisor_->tick(Clock::now()));
    apply_resizes(Clock::now());
    if (!finished_) {
      for (LoopListener* listener : listeners_) listener->turn_done();
    }
    start_queued();
    write_counters();
    if (observer_->due(Clock::now())) observer_->publish(status_now(), Clock::now());
  }
  // Nothing of the program outlives the launcher.
  base::terminate_descendants(milliseconds(2000));
  try {
    // Before `exit`: a reader that waits for `exit` finds the outcome.
    write_outcome(run_dir_.path(), outcome_.finish(plan_, units_, *supervisor_, attempt_base_, epoch_base_,
                                                   exit_code_, finish_message_, run_dir_));
  } catch (const std::exception& e) {
    say("the program's outcome is not recorded: " + std::string(e.what()));
  }
  try {
    run_dir_.write_exit(exit_code_);
  } catch (const std::exception& e) {
    // The program's outcome stands; only its record is missing.
    say("the program's exit status (" + std::to_string(exit_code_) + ") is not recorded: " +
        e.what());
  }
  observer_->publish(status_now(), Clock::now());  // the program's last word, for a reader that was late
  observer_.reset();
  control_.reset();
  loop_.flush_output(Clock::now() + kFinalFlush, [](int sig) { return sig != SIGCHLD; });
  LaunchOutcome outcome;
  outcome.kind = LaunchOutcome::Kind::Ran;
  outcome.program_status = exit_code_;
  outcome.message = finish_message_;
  outcome.run_directory = run_dir_.path();
  for (std::size_t unit = 0; unit < units_.size(); ++unit) {
    const auto view = supervisor_->unit(unit);
    const bool started = view.state != UnitState::Pending;
    outcome.units.push_back({units_[unit].name, view.state, started ? view.attempt + 1 : 0});
  }
  return outcome;
}

}  // namespace slipway::launch
