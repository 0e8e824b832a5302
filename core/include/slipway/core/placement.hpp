// Where a unit goes when it is launched again after its first launch: the
// planner's rule for relaunches (the Slurm controller asks it after a host
// is lost or a step failed; nothing else chooses hosts for relaunches).
//
// Contract: pure. `taken` is what is held on each host now (by host name;
// hosts it does not name hold nothing). The unit's previous host is chosen
// when it is not lost and has room; else the first host of the plan, in
// plan order, that is not lost and has room; nothing when no host has room.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "slipway/core/plan.hpp"

namespace slipway::core {

struct HostDemand {
  std::uint32_t cpus = 0;
  std::uint32_t gpus = 0;
};

std::optional<std::string> host_for_relaunch(const Plan& plan, const std::string& previous_host,
                                             const HostDemand& need,
                                             const std::map<std::string, HostDemand>& taken,
                                             const std::set<std::string>& lost_hosts);

}  // namespace slipway::core
