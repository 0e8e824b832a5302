// Supervisor: decides relaunches, stops and the program's end (see header).
#include "slipway/launch/supervisor.hpp"

#include <signal.h>

#include <algorithm>
#include <cstring>

namespace slipway::launch {

std::string UnitExit::describe() const {
  if (!never_started.empty()) return "never started: " + never_started;
  if (!signaled) return "exited with status " + std::to_string(code);
  const char* name = strsignal(code);
  return "killed by signal " + std::to_string(code) + " (" + (name ? name : "unknown") + ")";
}

const char* to_string(UnitState state) {
  switch (state) {
    case UnitState::Pending: return "pending";
    case UnitState::Running: return "running";
    case UnitState::Backoff: return "restarting";
    case UnitState::Succeeded: return "done";
    case UnitState::Failed: return "failed";
    case UnitState::Stopped: return "stopped";
    case UnitState::Idle: return "idle";
  }
  return "unknown";
}

Supervisor::Supervisor(std::vector<SupervisedUnitSpec> units, SupervisorOptions options)
    : options_(options) {
  units_.reserve(units.size());
  for (auto& spec : units) {
    if (spec.world >= 0) {
      const auto w = static_cast<std::size_t>(spec.world);
      if (worlds_.size() <= w) worlds_.resize(w + 1);
      World& world = worlds_[w];
      world.max_retries = world.max_retries < 0 ? spec.max_retries
                                                : std::min(world.max_retries, spec.max_retries);
    }
    Unit unit;
    unit.spec = std::move(spec);
    units_.push_back(std::move(unit));
  }
}

Supervisor::UnitView Supervisor::unit(std::size_t index) const {
  const Unit& t = units_.at(index);
  const int epoch = t.spec.world >= 0 ? worlds_[static_cast<std::size_t>(t.spec.world)].epoch : 0;
  return UnitView{t.spec, t.state, t.attempt, epoch};
}

bool Supervisor::exit_expected(std::size_t index) const {
  const Unit& t = units_.at(index);
  if (phase_ == Phase::StoppingDaemons) return t.spec.daemon;  // the program is done: daemons stop
  if (phase_ != Phase::Running) return false;
  return t.retiring || (t.spec.world >= 0 && worlds_[static_cast<std::size_t>(t.spec.world)].restarting);
}

std::chrono::milliseconds Supervisor::backoff(int failures) const {
  auto grown = options_.backoff_initial * (1LL << std::min(failures, 20));
  return std::min<std::chrono::milliseconds>(grown, options_.backoff_max);
}

bool Supervisor::world_running(int world) const {
  return std::any_of(units_.begin(), units_.end(), [world](const Unit& t) {
    return t.spec.world == world && t.state == UnitState::Running;
  });
}

void Supervisor::restart_world(int world, std::size_t failed, const UnitExit& exit,
                               Clock::time_point now, std::vector<Action>& out) {
  World& w = worlds_[static_cast<std::size_t>(world)];
  std::string stopping;
  for (const Unit& t : units_) {
    if (t.spec.world == world && t.state == UnitState::Running && &t != &units_[failed]) {
      stopping += (stopping.empty() ? "" : ", ") + t.spec.name;
    }
  }
  out.push_back(Action{Action::Kind::Note, failed, 0, 0, 0, 0,
                       "the world of " + units_[failed].spec.name + " (" + exit.describe() +
                           ") restarts as epoch " +
                           std::to_string(w.epoch + 1) + " (" + std::to_string(w.failures + 1) + " of " +
                           std::to_string(w.max_retries) + " restarts allowed by max_retries)" +
                           (stopping.empty() ? "" : "; stopping " + stopping)});
  w.restart_at = now + backoff(w.failures);
  ++w.failures;
  units_[failed].state = UnitState::Backoff;
  stop_world(world, now, out);
}

void Supervisor::stop_world(int world, Clock::time_point now, std::vector<Action>& out) {
  World& w = worlds_[static_cast<std::size_t>(world)];
  w.restarting = true;
  for (std::size_t i = 0; i < units_.size(); ++i) {
    Unit& t = units_[i];
    if (t.spec.world != world) continue;
    if (t.state == UnitState::Running) {
      out.push_back(Action{Action::Kind::Signal, i, 0, 0, SIGTERM, 0, {}});
      w.kill_at = now + options_.grace;
      continue;  // becomes Backoff (or Idle, retiring) when it exits
    }
    if (t.state != UnitState::Idle) t.state = UnitState::Backoff;  // those done already
  }
}

std::vector<Action> Supervisor::resize(const std::vector<std::size_t>& start,
                                       const std::vector<std::size_t>& retire,
                                       const std::string& cause, Clock::time_point now) {
  std::vector<Action> out;
  if (phase_ != Phase::Running) return out;
  std::vector<int> worlds;
  auto touch = [&worlds](int world) {
    if (std::find(worlds.begin(), worlds.end(), world) == worlds.end()) worlds.push_back(world);
  };
  for (std::size_t i : retire) {
    Unit& t = units_.at(i);
    t.rejoin = false;
    if (t.state == UnitState::Running) {
      t.retiring = true;
      if (t.spec.world >= 0) {
        touch(t.spec.world);
      } else {
        out.push_back(Action{Action::Kind::Signal, i, 0, 0, SIGTERM, 0, {}});
        t.kill_at = now + options_.grace;
      }
    } else if (t.state == UnitState::Backoff || t.state == UnitState::Pending) {
      t.state = UnitState::Idle;
      if (t.spec.world >= 0) touch(t.spec.world);
    }
  }
  for (std::size_t i : start) {
    Unit& t = units_.at(i);
    if (t.retiring) {
      t.rejoin = true;  // asked back while it stops: it starts again once it ended
      continue;
    }
    if (t.state != UnitState::Idle) continue;
    if (t.spec.world >= 0) {
      t.state = UnitState::Backoff;  // launched with its world's new epoch
      touch(t.spec.world);
      continue;
    }
    launch_unit(i, out);
  }
  for (int world : worlds) {
    World& w = worlds_[static_cast<std::size_t>(world)];
    std::string stopping;
    std::size_t size = 0;
    for (const Unit& t : units_) {
      if (t.spec.world != world) continue;
      if (t.state == UnitState::Running) stopping += (stopping.empty() ? "" : ", ") + t.spec.name;
      if (t.state != UnitState::Idle && (!t.retiring || t.rejoin)) ++size;
    }
    out.push_back(Action{Action::Kind::Note, 0, 0, 0, 0, 0,
                         cause + ": its world restarts as epoch " + std::to_string(w.epoch + 1) +
                             " with " + std::to_string(size) + " replica(s)" +
                             (stopping.empty() ? "" : "; stopping " + stopping)});
    if (!w.restarting) w.restart_at = now;  // no backoff: nothing failed
    stop_world(world, now, out);
  }
  check_all_done(now, out);
  return out;
}

void Supervisor::launch_unit(std::size_t index, std::vector<Action>& out) {
  Unit& t = units_[index];
  if (t.launched) ++t.attempt;
  t.launched = true;
  t.state = UnitState::Running;
  const int epoch = t.spec.world >= 0 ? worlds_[static_cast<std::size_t>(t.spec.world)].epoch : 0;
  out.push_back(Action{Action::Kind::Launch, index, t.attempt, epoch, 0, 0, {}});
}

void Supervisor::check_all_done(Clock::time_point now, std::vector<Action>& out) {
  if (phase_ != Phase::Running) return;
  const bool all_done = std::all_of(units_.begin(), units_.end(), [](const Unit& x) {
    return x.spec.daemon || x.state == UnitState::Succeeded || x.state == UnitState::Idle;
  });
  if (all_done) begin_stop(Phase::StoppingDaemons, 0, "all tasks finished", now, out);
}

void Supervisor::fail_program(Unit& t, const UnitExit& exit, int retries_used,
                              Clock::time_point now, std::vector<Action>& out) {
  t.state = UnitState::Failed;
  std::string budget = t.spec.max_retries == 0
                           ? "no retries allowed (max_retries = 0)"
                           : "retries exhausted (max_retries = " +
                                 std::to_string(t.spec.max_retries) + ")";
  std::string when = t.spec.world >= 0
                         ? "in epoch " + std::to_string(retries_used) + " of its world"
                         : "on attempt " + std::to_string(t.attempt);
  begin_stop(Phase::Stopping, 1, "task " + t.spec.name + " " + exit.describe() + " " + when + "; " + budget,
             now, out);
}

std::vector<Action> Supervisor::start(Clock::time_point) {
  std::vector<Action> out;
  for (std::size_t i = 0; i < units_.size(); ++i) {
    if (units_[i].spec.idle) {
      units_[i].state = UnitState::Idle;
      continue;
    }
    launch_unit(i, out);
  }
  maybe_finish(out);
  return out;
}

std::vector<Action> Supervisor::unit_exited(std::size_t index, UnitExit exit,
                                            Clock::time_point now) {
  std::vector<Action> out;
  Unit& t = units_.at(index);
  if (t.state != UnitState::Running) return out;
  const bool retired = t.retiring && !t.rejoin;
  t.retiring = false;
  t.kill_at.reset();
  if (phase_ == Phase::Running && t.spec.world >= 0) {
    World& w = worlds_[static_cast<std::size_t>(t.spec.world)];
    if (w.restarting) {
      // Stopped for the new epoch: expected.
      t.state = retired ? UnitState::Idle : UnitState::Backoff;
      t.rejoin = false;
      return out;
    }
    if (!exit.success()) {
      if (w.failures < w.max_retries) {
        restart_world(t.spec.world, index, exit, now, out);
      } else {
        fail_program(t, exit, w.epoch, now, out);
      }
      return out;
    }
  }
  if (phase_ != Phase::Running) {
    // Exits while stopping are expected; a failure before the stop counts.
    t.state = exit.success() ? UnitState::Succeeded : UnitState::Stopped;
    t.term_at.reset();
    t.stop_kill_at.reset();
    // After a notice, daemons that were let run go once nothing needs them.
    const bool non_daemon_runs = std::any_of(units_.begin(), units_.end(), [](const Unit& x) {
      return !x.spec.daemon && x.state == UnitState::Running;
    });
    if (!non_daemon_runs) {
      for (std::size_t i = 0; i < units_.size(); ++i) {
        if (units_[i].spec.daemon && units_[i].term_at) signal_noticed(i, now, out);
      }
    }
    maybe_finish(out);
    return out;
  }
  if (retired || t.rejoin) {
    // Stopped by a resize, whatever its status: idle, or back at once.
    t.state = UnitState::Idle;
    if (t.rejoin) {
      t.rejoin = false;
      launch_unit(index, out);
    }
    check_all_done(now, out);
    return out;
  }
  if (exit.success()) {
    t.state = UnitState::Succeeded;
    check_all_done(now, out);
    return out;
  }
  if (t.attempt < t.spec.max_retries) {
    t.state = UnitState::Backoff;
    t.restart_at = now + backoff(t.attempt);
    return out;
  }
  fail_program(t, exit, t.attempt, now, out);
  return out;
}

std::vector<Action> Supervisor::stop_requested(const std::string& reason, int exit_code,
                                               Clock::time_point now) {
  std::vector<Action> out;
  if (phase_ == Phase::Stopping || phase_ == Phase::Finished) return out;
  begin_stop(Phase::Stopping, exit_code, reason, now, out);
  return out;
}

std::vector<Action> Supervisor::stop_with_notice(const std::string& reason, int exit_code,
                                                 Clock::time_point deadline, Clock::time_point now) {
  std::vector<Action> out;
  if (phase_ == Phase::Stopping || phase_ == Phase::Finished) return out;
  const bool non_daemon_runs = std::any_of(units_.begin(), units_.end(), [](const Unit& x) {
    return !x.spec.daemon && x.state == UnitState::Running && x.spec.hears_notice;
  });
  for (Unit& t : units_) {
    // A daemon waits for the non-daemon tasks that were let run, if any;
    // begin_stop leaves the tasks let run alone.
    if (t.state == UnitState::Running && t.spec.hears_notice && !t.retiring && (!t.spec.daemon || non_daemon_runs)) {
      t.term_at = deadline;
    }
  }
  begin_stop(Phase::Stopping, exit_code, reason, now, out);
  return out;
}

void Supervisor::signal_noticed(std::size_t index, Clock::time_point now, std::vector<Action>& out) {
  Unit& t = units_[index];
  t.term_at.reset();
  t.stop_kill_at = now + options_.grace;
  out.push_back(Action{Action::Kind::Signal, index, 0, 0, SIGTERM, 0, {}});
}

std::vector<Action> Supervisor::tick(Clock::time_point now) {
  std::vector<Action> out;
  for (std::size_t i = 0; i < units_.size(); ++i) {
    Unit& t = units_[i];
    if (t.state != UnitState::Running) continue;
    if (t.term_at && *t.term_at <= now) signal_noticed(i, now, out);
    if (t.stop_kill_at && *t.stop_kill_at <= now) {
      t.stop_kill_at.reset();
      out.push_back(Action{Action::Kind::Signal, i, 0, 0, SIGKILL, 0, {}});
    }
  }
  if (phase_ == Phase::Running) {
    for (std::size_t i = 0; i < units_.size(); ++i) {
      Unit& t = units_[i];
      if (t.spec.world < 0 && t.state == UnitState::Backoff && t.restart_at <= now) {
        launch_unit(i, out);
      }
      if (t.retiring && t.kill_at && *t.kill_at <= now) {
        t.kill_at.reset();
        out.push_back(Action{Action::Kind::Signal, i, 0, 0, SIGKILL, 0, {}});
      }
    }
    for (std::size_t w = 0; w < worlds_.size(); ++w) {
      World& world = worlds_[w];
      if (!world.restarting) continue;
      const int id = static_cast<int>(w);
      if (world.kill_at && *world.kill_at <= now) {
        world.kill_at.reset();
        for (std::size_t i = 0; i < units_.size(); ++i) {
          if (units_[i].spec.world == id && units_[i].state == UnitState::Running) {
            out.push_back(Action{Action::Kind::Signal, i, 0, 0, SIGKILL, 0, {}});
          }
        }
      }
      if (world_running(id) || world.restart_at > now) continue;
      world.restarting = false;
      world.kill_at.reset();
      ++world.epoch;
      for (std::size_t i = 0; i < units_.size(); ++i) {
        Unit& t = units_[i];
        if (t.spec.world != id || t.state == UnitState::Idle) continue;
        launch_unit(i, out);
      }
    }
  }
  if (kill_at_ && *kill_at_ <= now) {
    kill_at_.reset();
    for (std::size_t i = 0; i < units_.size(); ++i) {
      const Unit& t = units_[i];
      // Tasks let run after a notice have their own SIGKILL.
      if (t.state == UnitState::Running && !t.term_at && !t.stop_kill_at) {
        out.push_back(Action{Action::Kind::Signal, i, 0, 0, SIGKILL, 0, {}});
      }
    }
  }
  return out;
}

std::optional<Clock::time_point> Supervisor::next_deadline() const {
  std::optional<Clock::time_point> next = kill_at_;
  auto consider = [&next](Clock::time_point when) {
    if (!next || when < *next) next = when;
  };
  for (const Unit& t : units_) {
    if (t.state != UnitState::Running) continue;
    if (t.term_at) consider(*t.term_at);
    if (t.stop_kill_at) consider(*t.stop_kill_at);
  }
  if (phase_ == Phase::Running) {
    for (const Unit& t : units_) {
      if (t.spec.world < 0 && t.state == UnitState::Backoff) consider(t.restart_at);
      if (t.retiring && t.kill_at) consider(*t.kill_at);
    }
    for (std::size_t w = 0; w < worlds_.size(); ++w) {
      const World& world = worlds_[w];
      if (!world.restarting) continue;
      if (world.kill_at) consider(*world.kill_at);
      if (!world_running(static_cast<int>(w))) consider(world.restart_at);
    }
  }
  return next;
}

void Supervisor::begin_stop(Phase phase, int exit_code, std::string message,
                            Clock::time_point now, std::vector<Action>& out) {
  phase_ = phase;
  exit_code_ = exit_code;
  message_ = std::move(message);
  for (std::size_t i = 0; i < units_.size(); ++i) {
    Unit& t = units_[i];
    if (t.state == UnitState::Backoff || t.state == UnitState::Pending) {
      t.state = UnitState::Stopped;
    } else if (t.state == UnitState::Running && !t.term_at) {
      out.push_back(Action{Action::Kind::Signal, i, 0, 0, SIGTERM, 0, {}});
    }
  }
  kill_at_ = now + options_.grace;
  maybe_finish(out);
}

bool Supervisor::any_running() const {
  return std::any_of(units_.begin(), units_.end(),
                     [](const Unit& t) { return t.state == UnitState::Running; });
}

void Supervisor::maybe_finish(std::vector<Action>& out) {
  if (phase_ == Phase::Running || phase_ == Phase::Finished || any_running()) return;
  phase_ = Phase::Finished;
  kill_at_.reset();
  out.push_back(Action{Action::Kind::Finish, 0, 0, 0, 0, exit_code_, message_});
}

}  // namespace slipway::launch
