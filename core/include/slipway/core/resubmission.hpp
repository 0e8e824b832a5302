// Placement of a resubmitted unit after the plan has started: which host of
// the allocation takes a unit that failed (its host may have been lost).
// The planner's rule for resubmissions; the Slurm controller asks it and
// has no placement of its own.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "slipway/core/plan.hpp"

namespace slipway::core {

// CPUs and GPUs taken on one host.
struct HostUse {
  std::uint32_t cpus = 0;
  std::uint32_t gpus = 0;
};

struct Resubmission {
  std::string previous_host;  // where the unit ran last
  HostUse demand;             // what the unit needs (all its tasks)
  // By host name: what is held now (Slurm holds a step's CPUs until all of
  // its tasks have ended) ...
  std::map<std::string, HostUse> held_now;
  // ... and what the units still running will hold once the steps of ended
  // units have finished (a host with room by this count has it soon).
  std::map<std::string, HostUse> held_by_running_units;
  std::set<std::string> lost_hosts;  // never chosen
};

// A host for a resubmitted unit: its previous host unless it was lost,
// else the first other host (in allocation order) with room, counting
// first what is held now, failing that what the running units hold. None
// when no host that is not lost has room by either count.
std::optional<std::string> host_for_resubmission(const std::vector<Host>& hosts,
                                                 const Resubmission& request);

}  // namespace slipway::core
