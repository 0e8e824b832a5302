// local_allocation: this machine as an Allocation (plan.hpp). Reads the CPU
// affinity mask, the physical memory and the host name.
#include <sched.h>
#include <unistd.h>

#include <algorithm>

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

std::string this_host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace

Allocation local_allocation(const LocalAllocationOptions& options) {
  const std::uint32_t count = std::max<std::uint32_t>(1, options.hosts.value_or(1));
  Allocation allocation;
  for (std::uint32_t i = 0; i < count; ++i) {
    Host host;
    host.name = count == 1 ? this_host_name() : "local" + std::to_string(i);
    host.address = "127.0.0.1";
    host.cpus = options.cpus_per_host ? *options.cpus_per_host : usable_cpus();
    host.gpus = options.gpus_per_host.value_or(0);
    host.mem_mb = options.mem_per_host_mb ? *options.mem_per_host_mb : total_memory_mb();
    allocation.hosts.push_back(std::move(host));
  }
  return allocation;
}

}  // namespace slipway::core
