// host_for_resubmission: where a failed unit runs again (resubmission.hpp).
#include "slipway/core/resubmission.hpp"

namespace slipway::core {
namespace {

std::optional<std::string> pick(const std::vector<Host>& hosts, const Resubmission& request,
                                const std::map<std::string, HostUse>& held) {
  auto fits = [&](const Host& host) {
    if (request.lost_hosts.count(host.name)) return false;
    auto it = held.find(host.name);
    const HostUse used = it == held.end() ? HostUse{} : it->second;
    return used.cpus + request.demand.cpus <= host.cpus &&
           used.gpus + request.demand.gpus <= host.gpus;
  };
  for (const Host& host : hosts) {
    if (host.name == request.previous_host && fits(host)) return host.name;
  }
  for (const Host& host : hosts) {
    if (fits(host)) return host.name;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> host_for_resubmission(const std::vector<Host>& hosts,
                                                 const Resubmission& request) {
  if (auto host = pick(hosts, request, request.held_now)) return host;
  return pick(hosts, request, request.held_by_running_units);
}

}  // namespace slipway::core
