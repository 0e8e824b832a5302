// The Slurm controller's step ledger (step_ledger.hpp).
#include "step_ledger.hpp"

#include <algorithm>

#include "slipway/core/placement.hpp"

namespace slipway::launch {

StepLedger::StepLedger(const core::Plan& plan, const std::vector<LaunchUnit>& units, std::string job_id,
                       std::function<Holding(std::size_t unit)> holding)
    : plan_(plan), units_(units), job_id_(std::move(job_id)), holding_(std::move(holding)) {
  for (const auto& unit : units_) unit_host_.push_back(plan_.hosts.at(unit.host).name);
  for (const auto& host : plan_.hosts) {
    if (host.satellite) placeholders_.insert(host.name);
  }
}

void StepLedger::unhost(std::size_t unit) {
  unit_host_.at(unit) = "satellite:" + units_.at(unit).name;
  placeholders_.insert(unit_host_[unit]);
}

void StepLedger::step_started(pid_t pid, const StepRequest& step, bool in_job) {
  live_steps_[pid] = Reservation{in_job ? step.host : "job " + step.job_id, step.cpus * step.tasks,
                                 step.gpus * step.tasks};
}

void StepLedger::step_ended(pid_t pid) {
  live_steps_.erase(pid);
  steps_with_losses_.erase(pid);
}

bool StepLedger::steps_in_job(const std::string& job_id) const {
  const std::string in_job = "job " + job_id;
  return std::any_of(live_steps_.begin(), live_steps_.end(),
                     [&](const auto& step) { return step.second.host == in_job; });
}

// Units starting in the same turn without a step yet (a world's new
// epoch; replicas an elastic node adds, bound to their planned hosts) and
// units between attempts count on the host they had; units waiting for a
// satellite job count nowhere.
std::optional<std::string> StepLedger::host_with_room(std::size_t unit, const StepRequest& step,
                                                      bool now_only) const {
  std::map<std::string, core::HostDemand> held, used;
  for (const auto& [pid, step_held] : live_steps_) {
    held[step_held.host].cpus += step_held.cpus;
    held[step_held.host].gpus += step_held.gpus;
  }
  for (std::size_t u = 0; u < units_.size(); ++u) {
    if (u == unit || unhosted(u)) continue;  // placeholders are not the job's hosts
    const Holding holding = holding_(u);
    if (holding == Holding::nothing) continue;
    StepRequest other = step_for_unit(plan_, units_[u]);
    used[unit_host_[u]].cpus += other.cpus;
    used[unit_host_[u]].gpus += other.gpus;
    if (holding == Holding::starting) {
      held[unit_host_[u]].cpus += other.cpus;
      held[unit_host_[u]].gpus += other.gpus;
    }
  }
  const core::HostDemand need{step.cpus, step.gpus};
  std::set<std::string> excluded = lost_hosts_;
  excluded.insert(placeholders_.begin(), placeholders_.end());
  for (const auto* taken : {&held, &used}) {
    if (now_only && taken == &used) break;
    if (auto host = core::host_for_relaunch(plan_, unit_host_[unit], need, *taken, excluded)) return host;
  }
  return std::nullopt;
}

std::string StepLedger::no_room_in_job(const StepRequest& step) const {
  std::string lost;
  for (const auto& h : lost_hosts_) lost += (lost.empty() ? "" : ", ") + h;
  return "no host of job " + job_id_ + " has room for " + step.unit_name + " (" + std::to_string(step.cpus) +
         " cpus, " + std::to_string(step.gpus) + " gpus)" + (lost.empty() ? "" : "; lost hosts: " + lost);
}

}  // namespace slipway::launch
