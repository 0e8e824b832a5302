// LauncherLoop, the units' lives: their launch (through the launch queue,
// in groups that share a carrier), what the rendezvous says of their tasks
// (joined, left, vanished), their carriers' ends, and how each unit ended
// (the failure line with its log, a loss, an elastic replica's shrink).
#include "launcher_loop.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "slipway/rendezvous/server.hpp"

namespace slipway::launch {

namespace {

using std::chrono::milliseconds;

// How long a unit whose carrier ended before its agent said how it ended
// (joined, never left) waits for the rendezvous's verdict on that agent,
// when the launcher hears losses of its hosts (hear_losses()).
// srun may report its killed task before the killed agent's connection is
// heard to drop (the FIN, a few milliseconds later): the unit is then lost
// (its host marked lost), not a plain failure restarted on the same host.
// A dropped connection is heard at once; a silent one (a host cut off)
// takes the heartbeat budget, but its srun does not end first either. With
// no verdict in this time the unit ends with its carrier's exit.
constexpr milliseconds kLossVerdictWait{2000};

}  // namespace

void LauncherLoop::launch(const std::vector<std::size_t>& units, int attempt) {
  for (std::size_t unit : units) {
    const int world = units_[unit].world;
    if (world >= 0) {
      const int epoch = unit_epoch(unit);
      auto [it, fresh] = recorded_epoch_.emplace(world, epoch);
      if (observer_ && (fresh || it->second != epoch)) {
        it->second = epoch;
        observe::Event event;
        event.kind = "epoch";
        event.node = plan_.tasks[units_[unit].tasks.front()].node;
        event.epoch = epoch;
        event.cause = "epoch " + std::to_string(epoch) + " of its world" +
                      (fresh && attempt == 0 ? std::string(" starts") : ": " + last_note_);
        observer_->record(std::move(event));
      }
    }
  }
  if (attempt > 0) {
    for (std::size_t unit : units) {
      const int epoch = unit_epoch(unit);
      say("restarting " + units_[unit].name + " (attempt " + std::to_string(attempt) +
          (epoch > 0 ? ", epoch " + std::to_string(epoch) + " of its world" : std::string()) + ")");
      for (std::uint32_t t : units_[unit].tasks) {
        control_->clear_stop(plan_.tasks[t].node, plan_.tasks[t].replica);
      }
    }
  }
  const std::vector<std::size_t> now = queue_->admit(units, attempt);
  if (auto line = queue_->refusal()) say(*line);
  start_now(now, attempt);
}

void LauncherLoop::start_queued() {
  while (auto batch = queue_->next_batch()) start_now(batch->first, batch->second);
}

void LauncherLoop::start_now(const std::vector<std::size_t>& units, int attempt) {
  if (units.empty()) return;
  for (std::size_t unit : units) {
    if (units_[unit].world < 0) continue;
    for (std::uint32_t t : units_[unit].tasks) {
      const core::Task& task = plan_.tasks[t];
      if (forms_world(*plan_.node(task).framework)) control_->set_epoch(task.node, unit_epoch(unit));
    }
  }
  std::vector<std::vector<std::size_t>> groups = launching(units, attempt);
  // A later attempt starts each unit alone (start_units' contract), also
  // when several were queued together.
  if (attempt > 0) {
    groups.clear();
    for (std::size_t unit : units) groups.push_back({unit});
  }
  for (const auto& group : groups) {
    if (group.empty()) continue;
    try {
      UnitHandle carrier = start_units(group, attempt, unit_environment());
      tracker_->started(carrier, group, attempt);
      record_launch(group, attempt);
      for (std::size_t unit : group) {
        record_unit_event(attempt > 0 ? "restart" : "start", unit, attempt,
                          attempt > 0 ? "attempt " + std::to_string(task_attempt(attempt)) : std::string());
      }
    } catch (const WaitForHost& e) {
      for (std::size_t unit : group) {
        queue_->wait_for_host(unit, attempt);
        say(units_[unit].name + ": " + e.what());
      }
    } catch (const NoRoom& e) {
      for (std::size_t unit : group) {
        queue_->release(unit);
        ended_without_room(unit, e.what(), true);
      }
    } catch (const std::exception& e) {
      for (std::size_t unit : group) {
        queue_->release(unit);
        say(units_[unit].name + ": " + e.what());
        outcome_.not_started(unit, attempt, e.what());
        carry_out(supervisor_->unit_exited(unit, UnitExit{false, 127}, Clock::now()));
      }
    }
  }
}

void LauncherLoop::unit_done(std::size_t unit, UnitExit exit, bool lost) {
  queue_->release(unit);
  if (observer_) {
    const int attempt = supervisor_->unit(unit).attempt;
    const std::string cause = (lost ? "lost: " : "") + exit.describe() +
                              (supervisor_->exit_expected(unit) || supervisor_->stopping() ? " (stopped)" : "");
    record_unit_event("exit", unit, attempt, cause);
    using namespace std::chrono;
    const auto now_ms = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
    for (std::uint32_t t : units_[unit].tasks) {
      observer_->task_ended(plan_.tasks[t].name(),
                            observe::LastExit{plan_.tasks[t].replica, task_attempt(attempt), cause, now_ms});
    }
  }
  const core::Task& task = plan_.tasks[units_[unit].tasks.front()];
  const auto replica = elastic_->replica_of(unit);
  if (!lost && !exit.success() && supervisor_->unit(unit).state == UnitState::Running &&
      signals_seen_ == 0 && !supervisor_->exit_expected(unit)) {
    // The log of the task that failed the unit (a colocated unit's first
    // to fail; its first task when none was heard to). A task that never
    // started may have no log.
    const auto failed = outcome_.failed_task(plan_, units_[unit], task_attempt(supervisor_->unit(unit).attempt));
    const std::string log = run_dir_.logs_path() + "/" + failed.value_or(task.name()) + ".log";
    const bool has_log = exit.never_started.empty() || access(log.c_str(), F_OK) == 0;
    const std::string which = units_[unit].tasks.size() > 1 && failed ? *failed + " failed; " : "";
    say(units_[unit].name + " " + exit.describe() + (has_log ? " (" + which + "log: " + log + ")" : ""));
    // on_loss = "shrink": the node carries on without it (down to MIN).
    if (replica && elastic_->nodes().shrinks_on_loss(replica->node) && !supervisor_->stopping()) {
      if (auto resize = elastic_->nodes().lost(replica->node, replica->replica,
                                       task.name() + " " + exit.describe() + "; on_loss = \"shrink\"")) {
        apply_resize(*resize, Clock::now(), unit);  // its exit is expected now: no retry used
      }
    }
  }
  outcome_.unit_ended(unit, supervisor_->unit(unit).attempt, exit, lost);
  carry_out(supervisor_->unit_exited(unit, exit, Clock::now()));
  // Lost where no host has room for it: its elastic node shrinks now, in
  // the epoch its loss began (the loss counted above), so that its world's
  // next epoch starts at the smaller size, not first at the old one, which
  // could not form.
  if (lost && replica && !supervisor_->stopping()) {
    if (auto why = losses_ ? losses_->no_room_for(unit) : std::nullopt) shrink_for(unit, *why, true);
  }
}

void LauncherLoop::on_member_joined(const MemberJoined& event) {
  std::size_t unit = unit_of_task(event.task);
  if (unit >= units_.size()) return;
  const auto& tasks = units_[unit].tasks;
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    if (plan_.tasks[tasks[k]].name() == event.task) {
      tracker_->task_joined(unit, static_cast<int>(event.attempt) - attempt_base_, k);
    }
  }
}

void LauncherLoop::on_member_ended(const MemberEnded& event) {
  std::size_t unit = unit_of_task(event.task);
  if (unit >= units_.size()) return;
  outcome_.task_ended(event);
  UnitHandle carrier = tracker_->carrier_of(unit);
  int attempt = static_cast<int>(event.attempt) - attempt_base_;
  if (event.failed) {
    // A held unit (its carrier ended first) gets its verdict now.
    const bool held = tracker_->held(unit);
    if ((!carrier && !held) || supervisor_->unit(unit).attempt != attempt) return;
    if (losses_ == nullptr || !losses_->unit_lost(unit, carrier, event)) {
      if (auto exit = held ? tracker_->release(unit) : std::nullopt) unit_done(unit, *exit, false);
      return;
    }
    if (!tracker_->task_vanished(unit, attempt)) return;
    unit_done(unit, UnitExit{true, SIGKILL}, true);
  } else {
    auto status = tracker_->task_left(unit, attempt, event.exit_status);
    if (!status) return;
    unit_done(unit, UnitExit{false, *status}, false);
  }
  if (carrier && tracker_->drained(carrier) && losses_ != nullptr) losses_->carrier_drained(carrier);
}

std::string LauncherLoop::never_joined(UnitHandle, const base::ExitStatus& exit) {
  return "its process " + exit.describe() + " before the task joined the program";
}

void LauncherLoop::carrier_ended(UnitHandle carrier, const base::ExitStatus& exit) {
  std::optional<std::vector<rendezvous::MemberRecord>> members;
  for (std::size_t unit : tracker_->carrier_ended(carrier)) {
    UnitExit task_exit{exit.signaled, exit.code, {}};
    bool joined = tracker_->all_joined(unit);
    if (!joined) {
      // The rendezvous answers a join before it tells this loop of it: a
      // task that joined, ran and ended at once may be reaped before its
      // join is heard. The server's own records say.
      if (!members) members = control_->server().members();
      const int attempt = task_attempt(supervisor_->unit(unit).attempt);
      std::size_t found = 0;
      for (std::uint32_t t : units_[unit].tasks) {
        const std::string name = plan_.tasks[t].name();
        found += std::any_of(members->begin(), members->end(), [&](const rendezvous::MemberRecord& m) {
          return static_cast<int>(m.identity.attempt) == attempt && m.identity.name() == name;
        });
      }
      joined = found == units_[unit].tasks.size();
    }
    if (!joined) {
      task_exit.never_started = never_joined(carrier, exit);
    } else if (losses_ != nullptr && supervisor_->unit(unit).state == UnitState::Running &&
               !supervisor_->exit_expected(unit) && !supervisor_->stopping() && signals_seen_ == 0) {
      // Its agent never said how it ended: the rendezvous may be about to
      // say it was lost (kLossVerdictWait).
      tracker_->hold(unit, task_exit, Clock::now() + kLossVerdictWait);
      continue;
    }
    unit_done(unit, task_exit, false);
  }
}

}  // namespace slipway::launch
