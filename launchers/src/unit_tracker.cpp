// UnitTracker: processes, their units, and the units' leaves (see header).
#include "slipway/launch/unit_tracker.hpp"

#include <algorithm>

namespace slipway::launch {

UnitTracker::UnitTracker(std::vector<std::size_t> tasks_per_unit) {
  units_.reserve(tasks_per_unit.size());
  for (std::size_t tasks : tasks_per_unit) units_.push_back(Unit{tasks == 0 ? 1 : tasks});
}

void UnitTracker::started(pid_t pid, const std::vector<std::size_t>& units, int attempt) {
  if (units.empty()) return;
  Process& process = processes_[pid];
  process.first_unit = units.front();
  for (std::size_t u : units) {
    Unit& unit = units_.at(u);
    if (unit.pid > 0) detach(u);
    unit.pid = pid;
    unit.attempt = attempt;
    unit.left = 0;
    unit.exit_status = 0;
    unit.joined.assign(unit.tasks, false);
    ++process.attached;
  }
}

void UnitTracker::detach(std::size_t u) {
  Unit& unit = units_[u];
  if (auto it = processes_.find(unit.pid); it != processes_.end() && it->second.attached > 0) {
    --it->second.attached;
  }
  unit.pid = -1;
}

std::optional<int> UnitTracker::task_left(std::size_t u, int attempt, int exit_status) {
  Unit& unit = units_.at(u);
  if (unit.pid <= 0 || unit.attempt != attempt) return std::nullopt;
  if (unit.exit_status == 0) unit.exit_status = exit_status;
  if (++unit.left < unit.tasks) return std::nullopt;
  detach(u);
  return unit.exit_status;
}

bool UnitTracker::task_vanished(std::size_t u, int attempt) {
  Unit& unit = units_.at(u);
  if (unit.pid <= 0 || unit.attempt != attempt) return false;
  detach(u);
  return true;
}

void UnitTracker::task_joined(std::size_t u, int attempt, std::size_t task) {
  Unit& unit = units_.at(u);
  if (unit.pid <= 0 || unit.attempt != attempt || task >= unit.joined.size()) return;
  unit.joined[task] = true;
}

bool UnitTracker::all_joined(std::size_t u) const {
  const Unit& unit = units_.at(u);
  return std::all_of(unit.joined.begin(), unit.joined.end(), [](bool joined) { return joined; });
}

std::vector<std::size_t> UnitTracker::process_exited(pid_t pid) {
  std::vector<std::size_t> ended;
  auto it = processes_.find(pid);
  if (it == processes_.end()) return ended;
  for (std::size_t u = 0; u < units_.size(); ++u) {
    if (units_[u].pid == pid) {
      units_[u].pid = -1;
      ended.push_back(u);
    }
  }
  processes_.erase(it);
  return ended;
}

bool UnitTracker::drained(pid_t pid) const {
  auto it = processes_.find(pid);
  return it != processes_.end() && it->second.attached == 0;
}

std::vector<std::pair<pid_t, std::size_t>> UnitTracker::processes() const {
  std::vector<std::pair<pid_t, std::size_t>> out;
  for (const auto& [pid, process] : processes_) out.emplace_back(pid, process.first_unit);
  return out;
}

}  // namespace slipway::launch
