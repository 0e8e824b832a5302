// local_allocation: this machine as an Allocation (plan.hpp). Reads the CPU
// affinity mask, the physical memory and the host name. local_run_allocation:
// the same, oversubscribed when the program asks for more CPUs.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <limits>

#include "slipway/base/local_address.hpp"
#include "slipway/core/plan.hpp"

namespace slipway::core {
namespace {

std::uint32_t usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<std::uint32_t>(n);
  }
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<std::uint32_t>(online) : 1;
}

std::uint64_t total_memory_mb() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) / (1024 * 1024);
}

}  // namespace

Allocation local_allocation(const LocalAllocationOptions& options) {
  const std::uint32_t count = std::max<std::uint32_t>(1, options.hosts.value_or(1));
  Allocation allocation;
  for (std::uint32_t i = 0; i < count; ++i) {
    Host host;
    host.name = count == 1 ? base::this_host_name() : "local" + std::to_string(i);
    host.address = "127.0.0.1";
    host.cpus = options.cpus_per_host ? *options.cpus_per_host : usable_cpus();
    host.gpus = options.gpus_per_host.value_or(0);
    host.mem_mb = options.mem_per_host_mb ? *options.mem_per_host_mb : total_memory_mb();
    allocation.hosts.push_back(std::move(host));
  }
  return allocation;
}

LocalRunAllocation local_run_allocation(const Program& program, const LocalAllocationOptions& options) {
  LocalRunAllocation out{local_allocation(options), ""};
  if (options.cpus_per_host) return out;
  std::uint64_t wanted = 0;
  for (const auto& node : program.nodes) wanted += std::uint64_t{*node.cpus} * node.replicas->max;
  std::uint64_t have = 0;
  for (const auto& host : out.allocation.hosts) have += host.cpus;
  if (wanted <= have) return out;
  const std::uint64_t hosts = out.allocation.hosts.size();
  const auto share = static_cast<std::uint32_t>(
      std::min<std::uint64_t>((wanted + hosts - 1) / hosts, std::numeric_limits<std::uint32_t>::max()));
  for (auto& host : out.allocation.hosts) host.cpus = share;
  out.note = "note: the program asks for " + std::to_string(wanted) + " cpus and this machine has " +
             std::to_string(have) + "; running oversubscribed (--cpus-per-host to plan otherwise)";
  return out;
}

}  // namespace slipway::core
