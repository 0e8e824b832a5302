// UnitTracker: which carrier (unit_handle.hpp: a process, or a task the
// launcher runs itself) carries which launch units, and what each unit's
// tasks reported through the rendezvous. I/O-free; the launcher loop feeds
// it and acts on its answers.
//
// Contract:
// - started(carrier, units, attempt): one carrier (a slipway-exec, one srun
//   step, an in-launcher task) now carries `units`, all on `attempt`; each
//   unit is attached to it until it ends.
// - A unit ends at the first of: every one of its tasks left the
//   rendezvous (task_left returns its exit: the first non-zero status of its
//   tasks, else 0); one of its tasks vanished (task_vanished returns true);
//   its carrier ended (carrier_ended lists the units still attached,
//   which end with the carrier's own status). Reports for another attempt
//   than the one running, or for a unit that already ended, are ignored.
// - task_joined(unit, attempt, k) records that the unit's k-th task joined
//   the rendezvous on that attempt; all_joined(unit) says whether every
//   task of the unit's latest attempt did (kept after the unit ends, until
//   it is started again). A unit whose carrier ended before all of its
//   tasks joined never ran them: its launcher treats that as a failure.
// - A carrier whose units have all ended may still run (an srun finishing
//   its step): drained() says so, and carrier_ended() forgets it.
// - hold(unit, exit, until): a unit carrier_ended just ended whose agent
//   never said how it ended (its tasks joined, not all left) waits for the
//   rendezvous's verdict on that agent, which may come just after the
//   carrier's end (an srun that reports its killed task before the agent's
//   connection is heard to drop). A held unit ends at the first of: one of
//   its tasks vanished (task_vanished: true, the unit is lost); its last
//   task left (task_left: its status, as for a running unit); `until`
//   passed (expired(now) returns it with `exit`, the carrier's); release()
//   (its exit). Until then it is not running (no carrier) but not ended.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "slipway/launch/supervisor.hpp"
#include "slipway/launch/unit_handle.hpp"

namespace slipway::launch {

class UnitTracker {
 public:
  // tasks_per_unit[u]: how many tasks unit u runs (colocated tasks share one).
  explicit UnitTracker(std::vector<std::size_t> tasks_per_unit);

  void started(UnitHandle carrier, const std::vector<std::size_t>& units, int attempt);
  // Exit status of the unit when this was its last task to leave.
  std::optional<int> task_left(std::size_t unit, int attempt, int exit_status);
  // Whether the unit was running on that attempt (it has now ended).
  bool task_vanished(std::size_t unit, int attempt);
  // Task `task` (0-based within the unit) joined on `attempt`; ignored for
  // another attempt than the running one, or a task out of range.
  void task_joined(std::size_t unit, int attempt, std::size_t task);
  bool all_joined(std::size_t unit) const;
  // The units still attached to `carrier`, which end now; empty for an
  // unknown carrier.
  std::vector<std::size_t> carrier_ended(UnitHandle carrier);

  // The carrier of `unit`, or none when it is not running.
  UnitHandle carrier_of(std::size_t unit) const { return units_.at(unit).carrier; }
  bool drained(UnitHandle carrier) const;

  // See the contract: `unit` has just ended with its carrier (`exit`).
  void hold(std::size_t unit, UnitExit exit, Clock::time_point until);
  bool held(std::size_t unit) const { return units_.at(unit).hold.has_value(); }
  // Ends a held unit now: its carrier's exit (nothing when not held).
  std::optional<UnitExit> release(std::size_t unit);
  // The held units whose wait ended by `now`, each with its carrier's exit;
  // they have ended.
  std::vector<std::pair<std::size_t, UnitExit>> expired(Clock::time_point now);
  // When the first hold ends, if any.
  std::optional<Clock::time_point> next_deadline() const;
  bool any_carrier() const { return !carriers_.empty(); }
  // Every running carrier, each with one unit it carried (for signals).
  std::vector<std::pair<UnitHandle, std::size_t>> carriers() const;

 private:
  struct Hold {
    UnitExit exit;
    Clock::time_point until;
  };
  struct Unit {
    std::size_t tasks = 1;
    UnitHandle carrier;
    int attempt = 0;
    std::size_t left = 0;
    int exit_status = 0;
    std::vector<bool> joined{};  // per task, on `attempt`
    std::optional<Hold> hold{};  // ended with its carrier, waiting for its agent's verdict
  };
  // Running on `attempt`, or held from it.
  bool reporting(const Unit& unit, int attempt) const {
    return (unit.carrier || unit.hold) && unit.attempt == attempt;
  }
  struct Carrier {
    std::size_t first_unit = 0;
    std::size_t attached = 0;
  };
  void detach(std::size_t unit);

  std::vector<Unit> units_;
  std::map<UnitHandle, Carrier> carriers_;
};

}  // namespace slipway::launch
