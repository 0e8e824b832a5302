// The relaunch placement rule (placement.hpp).
#include "slipway/core/placement.hpp"

namespace slipway::core {

std::optional<std::string> host_for_relaunch(const Plan& plan, const std::string& previous_host,
                                             const HostDemand& need,
                                             const std::map<std::string, HostDemand>& taken,
                                             const std::set<std::string>& lost_hosts) {
  auto fits = [&](const Host& host) {
    if (lost_hosts.count(host.name)) return false;
    HostDemand held;
    if (auto it = taken.find(host.name); it != taken.end()) held = it->second;
    return std::uint64_t{held.cpus} + need.cpus <= host.cpus &&
           std::uint64_t{held.gpus} + need.gpus <= host.gpus;
  };
  for (const Host& host : plan.hosts) {
    if (host.name == previous_host && fits(host)) return host.name;
  }
  for (const Host& host : plan.hosts) {
    if (fits(host)) return host.name;
  }
  return std::nullopt;
}

}  // namespace slipway::core
