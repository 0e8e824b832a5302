// The Slurm controller's step ledger: where each unit runs (or is to run)
// now, which hosts are lost and which are placeholders (a slot held for a
// satellite job, a unit whose host is lost), what each running step holds,
// and from that which host of the job has room for a unit. I/O-free.
//
// Contract: a unit's host starts as its planned host. host_with_room()
// applies the planner's rule (core::host_for_relaunch) to what running
// steps and starting units hold: Slurm holds a step's CPUs until all of its
// tasks have ended, so a host has room now when the steps still running
// leave room; failing that (unless `now_only`), a host where the units
// still running leave room will have it once the steps of ended units
// finish (srun waits for it). Lost hosts and placeholders are never chosen.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/launch/launch_units.hpp"
#include "slipway/launch/slurm_steps.hpp"

namespace slipway::launch {

class StepLedger {
 public:
  // What a unit holds of its host, as the launcher sees it now: nothing
  // (not running, or in a satellite job: not the job's hosts), a running
  // carrier's room, or a starting unit's (being launched without a step
  // yet, or between attempts: it starts again on its host).
  enum class Holding { nothing, running, starting };

  // `plan` and `units` outlive the ledger; `holding(unit)` is asked for
  // every other unit as host_with_room() counts.
  StepLedger(const core::Plan& plan, const std::vector<LaunchUnit>& units, std::string job_id,
             std::function<Holding(std::size_t unit)> holding);

  // Every unit's host now, by unit.
  const std::vector<std::string>& hosts() const { return unit_host_; }
  const std::string& host(std::size_t unit) const { return unit_host_.at(unit); }
  void set_host(std::size_t unit, const std::string& host) { unit_host_.at(unit) = host; }
  void swap_hosts(std::size_t a, std::size_t b) { std::swap(unit_host_.at(a), unit_host_.at(b)); }
  // Gives `unit` the placeholder host "satellite:UNIT" (as the plan names
  // the hosts of satellite slots): it has none now.
  void unhost(std::size_t unit);
  // Whether `unit`'s host now is a placeholder.
  bool unhosted(std::size_t unit) const { return placeholders_.count(unit_host_.at(unit)) != 0; }

  // `unit`'s host now is lost (its agent vanished).
  void lose_host_of(std::size_t unit) { lost_hosts_.insert(unit_host_.at(unit)); }
  bool lost(const std::string& host) const { return lost_hosts_.count(host) != 0; }
  bool any_lost() const { return !lost_hosts_.empty(); }

  // A step started as process `pid`: `step` on its host, or in satellite
  // job `step.job_id` when not `in_job`.
  void step_started(pid_t pid, const StepRequest& step, bool in_job);
  // The step's process ended.
  void step_ended(pid_t pid);
  // A unit of the step was lost.
  void step_lost_a_unit(pid_t pid) { steps_with_losses_.insert(pid); }
  // Whether the step lost a unit (and so waits for Slurm to notice its
  // host); forgets it.
  bool take_step_with_losses(pid_t pid) { return steps_with_losses_.erase(pid) != 0; }
  // Whether a step runs in satellite job `job_id`.
  bool steps_in_job(const std::string& job_id) const;

  // A host of the job with room for `unit`'s `step` now, or, unless
  // `now_only`, once the steps of ended units have finished.
  std::optional<std::string> host_with_room(std::size_t unit, const StepRequest& step, bool now_only) const;
  // "no host of job J has room for U (C cpus, G gpus)", with the lost hosts.
  std::string no_room_in_job(const StepRequest& step) const;

 private:
  struct Reservation {
    std::string host;  // or "job ID" for a satellite job's step
    std::uint32_t cpus = 0;
    std::uint32_t gpus = 0;
  };

  const core::Plan& plan_;
  const std::vector<LaunchUnit>& units_;
  std::string job_id_;
  std::function<Holding(std::size_t)> holding_;
  std::vector<std::string> unit_host_;
  std::set<std::string> placeholders_;  // the plan's hosts held for satellites, and unhost()'s
  std::set<std::string> lost_hosts_;
  std::map<pid_t, Reservation> live_steps_;  // what each running step holds
  std::set<pid_t> steps_with_losses_;
};

}  // namespace slipway::launch
