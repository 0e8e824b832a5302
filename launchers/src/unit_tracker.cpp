// UnitTracker: carriers, their units, and the units' leaves (see header).
#include "slipway/launch/unit_tracker.hpp"

#include <algorithm>

namespace slipway::launch {

UnitTracker::UnitTracker(std::vector<std::size_t> tasks_per_unit) {
  units_.reserve(tasks_per_unit.size());
  for (std::size_t tasks : tasks_per_unit) {
    Unit unit;
    unit.tasks = tasks == 0 ? 1 : tasks;
    units_.push_back(unit);
  }
}

void UnitTracker::started(UnitHandle carrier, const std::vector<std::size_t>& units, int attempt) {
  if (units.empty()) return;
  Carrier& process = carriers_[carrier];
  process.first_unit = units.front();
  for (std::size_t u : units) {
    Unit& unit = units_.at(u);
    if (unit.carrier) detach(u);
    unit.carrier = carrier;
    unit.attempt = attempt;
    unit.left = 0;
    unit.exit_status = 0;
    unit.joined.assign(unit.tasks, false);
    unit.hold.reset();
    ++process.attached;
  }
}

void UnitTracker::detach(std::size_t u) {
  Unit& unit = units_[u];
  unit.hold.reset();
  if (auto it = carriers_.find(unit.carrier); it != carriers_.end() && it->second.attached > 0) {
    --it->second.attached;
  }
  unit.carrier = UnitHandle{};
}

std::optional<int> UnitTracker::task_left(std::size_t u, int attempt, int exit_status) {
  Unit& unit = units_.at(u);
  if (!reporting(unit, attempt)) return std::nullopt;
  if (unit.exit_status == 0) unit.exit_status = exit_status;
  if (++unit.left < unit.tasks) return std::nullopt;
  detach(u);
  return unit.exit_status;
}

bool UnitTracker::task_vanished(std::size_t u, int attempt) {
  Unit& unit = units_.at(u);
  if (!reporting(unit, attempt)) return false;
  detach(u);
  return true;
}

void UnitTracker::task_joined(std::size_t u, int attempt, std::size_t task) {
  Unit& unit = units_.at(u);
  if (!unit.carrier || unit.attempt != attempt || task >= unit.joined.size()) return;
  unit.joined[task] = true;
}

bool UnitTracker::all_joined(std::size_t u) const {
  const Unit& unit = units_.at(u);
  return std::all_of(unit.joined.begin(), unit.joined.end(), [](bool joined) { return joined; });
}

std::vector<std::size_t> UnitTracker::carrier_ended(UnitHandle carrier) {
  std::vector<std::size_t> ended;
  auto it = carriers_.find(carrier);
  if (it == carriers_.end()) return ended;
  for (std::size_t u = 0; u < units_.size(); ++u) {
    if (units_[u].carrier == carrier) {
      units_[u].carrier = UnitHandle{};
      ended.push_back(u);
    }
  }
  carriers_.erase(it);
  return ended;
}

void UnitTracker::hold(std::size_t u, UnitExit exit, Clock::time_point until) {
  Unit& unit = units_.at(u);
  if (unit.carrier) return;  // still running: nothing to hold
  unit.hold = Hold{std::move(exit), until};
}

std::optional<UnitExit> UnitTracker::release(std::size_t u) {
  Unit& unit = units_.at(u);
  if (!unit.hold) return std::nullopt;
  UnitExit exit = std::move(unit.hold->exit);
  unit.hold.reset();
  return exit;
}

std::vector<std::pair<std::size_t, UnitExit>> UnitTracker::expired(Clock::time_point now) {
  std::vector<std::pair<std::size_t, UnitExit>> out;
  for (std::size_t u = 0; u < units_.size(); ++u) {
    if (units_[u].hold && units_[u].hold->until <= now) out.emplace_back(u, *release(u));
  }
  return out;
}

std::optional<Clock::time_point> UnitTracker::next_deadline() const {
  std::optional<Clock::time_point> first;
  for (const Unit& unit : units_) {
    if (unit.hold && (!first || unit.hold->until < *first)) first = unit.hold->until;
  }
  return first;
}

bool UnitTracker::drained(UnitHandle carrier) const {
  auto it = carriers_.find(carrier);
  return it != carriers_.end() && it->second.attached == 0;
}

std::vector<std::pair<UnitHandle, std::size_t>> UnitTracker::carriers() const {
  std::vector<std::pair<UnitHandle, std::size_t>> out;
  for (const auto& [carrier, c] : carriers_) out.emplace_back(carrier, c.first_unit);
  return out;
}

}  // namespace slipway::launch
