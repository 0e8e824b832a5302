// make_plan: places a Program onto an Allocation (plan.hpp). Placement units
// are single nodes or colocate groups; hosts are filled in order (first fit);
// elastic units grow in rounds while everything still fits.
#include <algorithm>
#include <map>
#include <tuple>

#include "limits.hpp"
#include "slipway/core/environment.hpp"
#include "slipway/core/plan.hpp"

namespace slipway::core {
namespace {

struct Demand {
  std::uint64_t cpus = 0;
  std::uint64_t gpus = 0;
  std::uint64_t mem_mb = 0;
};

// A node, or every node of one colocate group, placed replica by replica.
struct Unit {
  std::vector<std::size_t> members;  // indices into program.nodes
  ReplicaRange range;
  std::uint32_t hosts = 0;           // `nodes`: spread over exactly this many hosts
  std::string partition;
  std::string colocate;
  Demand per_replica;
};

struct HostState {
  std::uint64_t cpus = 0;
  std::uint64_t mem_mb = 0;
  bool mem_known = false;
  std::vector<std::uint32_t> free_gpus;  // ascending

  bool fits(const Demand& d, std::uint64_t times) const {
    return cpus >= d.cpus * times && free_gpus.size() >= d.gpus * times &&
           (!mem_known || mem_mb >= d.mem_mb * times);
  }
  std::vector<std::uint32_t> take(const Demand& d) {
    cpus -= d.cpus;
    if (mem_known) mem_mb -= d.mem_mb;
    std::vector<std::uint32_t> gpus(free_gpus.begin(), free_gpus.begin() + static_cast<long>(d.gpus));
    free_gpus.erase(free_gpus.begin(), free_gpus.begin() + static_cast<long>(d.gpus));
    return gpus;
  }
};

struct Failure {
  std::size_t unit = 0;
  std::uint32_t replica = 0;
  std::uint32_t block_size = 0;  // > 0 when a `nodes` block did not fit
  bool no_eligible_host = false;
  std::vector<HostState> hosts;  // the hosts' free resources when it failed
};

struct Placement {
  std::vector<std::vector<std::uint32_t>> host;                // [unit][replica]
  std::vector<std::vector<std::vector<std::uint32_t>>> gpus;   // [unit][replica]: member GPUs in order
  std::vector<Failure> failures;                               // at most one per unit
};

bool host_in_partition(const Host& host, const std::string& partition) {
  if (partition.empty() || host.partitions.empty()) return true;
  std::size_t start = 0;
  for (;;) {  // `partition` may be Slurm's comma list: any of them will do
    const std::size_t comma = partition.find(',', start);
    const std::string one = partition.substr(start, comma - start);
    if (std::find(host.partitions.begin(), host.partitions.end(), one) != host.partitions.end()) return true;
    if (comma == std::string::npos) return false;
    start = comma + 1;
  }
}

std::vector<Unit> make_units(const Program& program) {
  std::vector<Unit> units;
  std::map<std::string, std::size_t> group_unit;
  for (std::size_t i = 0; i < program.nodes.size(); ++i) {
    const NodeSpec& node = program.nodes[i];
    std::size_t u;
    if (!node.colocate.value.empty() && group_unit.count(node.colocate.value) != 0) {
      u = group_unit[node.colocate.value];
    } else {
      u = units.size();
      units.push_back(Unit{{}, node.replicas.value, node.hosts.value, node.partition.value,
                           node.colocate.value, {}});
      if (!node.colocate.value.empty()) group_unit[node.colocate.value] = u;
    }
    units[u].members.push_back(i);
    units[u].per_replica.cpus += node.cpus.value;
    units[u].per_replica.gpus += node.gpus.value;
    units[u].per_replica.mem_mb += node.mem_mb.value;
  }
  return units;
}

class Placer {
 public:
  Placer(const Program& program, const Allocation& allocation, const std::vector<Unit>& units)
      : program_(program), allocation_(allocation), units_(units) {}

  Placement place(const std::vector<std::uint32_t>& counts) const {
    std::vector<HostState> hosts;
    for (const Host& h : allocation_.hosts) {
      HostState s{h.cpus, h.mem_mb, h.mem_mb != 0, {}};
      for (std::uint32_t g = 0; g < h.gpus; ++g) s.free_gpus.push_back(g);
      hosts.push_back(std::move(s));
    }
    Placement p;
    p.host.resize(units_.size());
    p.gpus.resize(units_.size());
    for (std::size_t u = 0; u < units_.size(); ++u) {
      if (units_[u].hosts > 0) {
        place_blocks(u, counts[u], hosts, p);
      } else {
        place_packed(u, counts[u], hosts, p);
      }
    }
    return p;
  }

 private:
  bool eligible(std::size_t u, std::size_t h) const {
    return host_in_partition(allocation_.hosts[h], units_[u].partition);
  }

  std::vector<std::vector<std::uint32_t>> take(std::size_t u, HostState& host) const {
    std::vector<std::vector<std::uint32_t>> member_gpus;
    for (std::size_t m : units_[u].members) {
      const NodeSpec& node = program_.nodes[m];
      member_gpus.push_back(host.take({node.cpus.value, node.gpus.value, node.mem_mb.value}));
    }
    return member_gpus;
  }

  void fail(std::size_t u, std::uint32_t replica, std::uint32_t block_size,
            const std::vector<HostState>& hosts, Placement& p) const {
    Failure f{u, replica, block_size, true, {}};
    for (std::size_t h = 0; h < hosts.size(); ++h) {
      if (eligible(u, h)) {
        f.no_eligible_host = false;
        break;
      }
    }
    f.hosts = hosts;
    p.failures.push_back(std::move(f));
  }

  // First fit, replica by replica. Free resources only shrink while one unit
  // is placed, so a host that was too full stays too full: scan on from it.
  void place_packed(std::size_t u, std::uint32_t count, std::vector<HostState>& hosts, Placement& p) const {
    const Demand& d = units_[u].per_replica;
    std::size_t h = 0;
    for (std::uint32_t r = 0; r < count; ++r) {
      while (h < hosts.size() && !(eligible(u, h) && hosts[h].fits(d, 1))) ++h;
      if (h == hosts.size()) {
        fail(u, r, 0, hosts, p);
        return;
      }
      p.host[u].push_back(static_cast<std::uint32_t>(h));
      p.gpus[u].push_back(flatten(take(u, hosts[h])));
    }
  }

  // `nodes = K`: K blocks of consecutive replicas (sizes differ by at most
  // one, larger first), each on its own host, which must hold the whole block.
  // A host too full for a block of one size stays too full for it, so each
  // of the two sizes keeps its own scan position.
  void place_blocks(std::size_t u, std::uint32_t count, std::vector<HostState>& hosts, Placement& p) const {
    const Demand& d = units_[u].per_replica;
    const std::uint32_t blocks = std::min(units_[u].hosts, count);
    std::vector<bool> used(hosts.size(), false);
    std::size_t scan[2] = {0, 0};  // [0]: larger blocks, [1]: smaller blocks
    std::uint32_t replica = 0;
    for (std::uint32_t b = 0; b < blocks; ++b) {
      const bool larger = b < count % blocks;
      const std::uint32_t size = count / blocks + (larger ? 1 : 0);
      std::size_t& h = scan[larger ? 0 : 1];
      while (h < hosts.size() && (used[h] || !eligible(u, h) || !hosts[h].fits(d, size))) ++h;
      if (h == hosts.size()) {
        fail(u, replica, size, hosts, p);
        return;
      }
      used[h] = true;
      for (std::uint32_t i = 0; i < size; ++i, ++replica) {
        p.host[u].push_back(static_cast<std::uint32_t>(h));
        p.gpus[u].push_back(flatten(take(u, hosts[h])));
      }
    }
  }

  static std::vector<std::uint32_t> flatten(const std::vector<std::vector<std::uint32_t>>& member_gpus) {
    std::vector<std::uint32_t> all;
    for (const auto& g : member_gpus) all.insert(all.end(), g.begin(), g.end());
    return all;
  }

  const Program& program_;
  const Allocation& allocation_;
  const std::vector<Unit>& units_;
};

std::string count_of(std::uint64_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// "4 cpus and 1 gpu", or "4 cpus, 1 gpu and 2048 MiB of memory".
std::string describe(const Demand& d, std::uint64_t times) {
  const std::string cpus = count_of(d.cpus * times, "cpu");
  const std::string gpus = count_of(d.gpus * times, "gpu");
  if (d.mem_mb == 0) return cpus + " and " + gpus;
  return cpus + ", " + gpus + " and " + std::to_string(d.mem_mb * times) + " MiB of memory";
}

std::string subject(const Program& program, const Unit& unit) {
  if (unit.members.size() == 1) return "node '" + program.nodes[unit.members[0]].name.value + "'";
  std::string s = "colocated group '" + unit.colocate + "' (nodes ";
  for (std::size_t i = 0; i < unit.members.size(); ++i) {
    s += (i == 0 ? "" : ", ") + program.nodes[unit.members[i]].name.value;
  }
  return s + ")";
}

PlanError explain(const Program& program, const Allocation& allocation, const std::vector<Unit>& units,
                  const Failure& f) {
  const Unit& unit = units[f.unit];
  const std::string who = subject(program, unit);
  const std::string& node = program.nodes[unit.members[0]].name.value;
  if (allocation.hosts.empty()) {
    return {node, who + " needs a host, but the allocation has none"};
  }
  if (f.no_eligible_host) {
    return {node, who + " asks for partition '" + unit.partition +
                      "', but no host of the allocation is in it; change 'partition' or the allocation"};
  }
  const std::size_t largest = static_cast<std::size_t>(
      std::max_element(f.hosts.begin(), f.hosts.end(),
                       [](const HostState& a, const HostState& b) {
                         return std::make_tuple(a.cpus, a.free_gpus.size(), a.mem_mb) <
                                std::make_tuple(b.cpus, b.free_gpus.size(), b.mem_mb);
                       }) -
      f.hosts.begin());
  const HostState& l = f.hosts[largest];
  std::string free = count_of(l.cpus, "cpu") + ", " + count_of(l.free_gpus.size(), "gpu");
  if (l.mem_known && unit.per_replica.mem_mb > 0) free += ", " + std::to_string(l.mem_mb) + " MiB";
  const std::string tail = "; no host has that left (largest free: " + free + " on host " +
                           allocation.hosts[largest].name + "); ask for more or larger hosts, or " +
                           "lower the node's cpus/gpus/mem/replicas";
  if (f.block_size > 0) {
    return {node, who + " replicas " + std::to_string(f.replica) + ".." +
                      std::to_string(f.replica + f.block_size - 1) + " must share one host ('nodes' = " +
                      std::to_string(unit.hosts) + ") and need " + describe(unit.per_replica, f.block_size) +
                      " together" + tail};
  }
  return {node, who + " replica " + std::to_string(f.replica) + " needs " +
                    describe(unit.per_replica, 1) + tail};
}

// Counts per unit for `rounds` rounds of elastic growth.
std::vector<std::uint32_t> grown(const std::vector<Unit>& units, std::uint32_t rounds) {
  std::vector<std::uint32_t> counts;
  for (const Unit& u : units) {
    counts.push_back(static_cast<std::uint32_t>(
        std::min<std::uint64_t>(std::uint64_t{u.range.min} + rounds, u.range.max)));
  }
  return counts;
}

// Elastic units grow one replica per round, in unit order, while the plan
// fits: binary search on whole rounds, then one partial round.
std::vector<std::uint32_t> grow_elastic(const Placer& placer, const std::vector<Unit>& units) {
  std::uint32_t max_rounds = 0;
  for (const Unit& u : units) max_rounds = std::max(max_rounds, u.range.max - u.range.min);
  std::uint32_t lo = 0, hi = max_rounds;  // lo fits
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo + 1) / 2;
    if (placer.place(grown(units, mid)).failures.empty()) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  std::vector<std::uint32_t> counts = grown(units, lo);
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (counts[u] >= units[u].range.max) continue;
    ++counts[u];
    if (!placer.place(counts).failures.empty()) --counts[u];
  }
  return counts;
}

}  // namespace

PlanResult make_plan(const Program& program, const Allocation& allocation) {
  PlanResult result;
  if (allocation.hosts.size() > limits::kMaxHosts) {
    result.errors.push_back({"", "the allocation has more than " + std::to_string(limits::kMaxHosts) + " hosts"});
    return result;
  }
  const std::vector<Unit> units = make_units(program);
  const Placer placer(program, allocation, units);

  std::vector<std::uint32_t> counts = grown(units, 0);
  const Placement minimum = placer.place(counts);
  for (const Failure& f : minimum.failures) result.errors.push_back(explain(program, allocation, units, f));
  if (!result.errors.empty()) return result;
  counts = grow_elastic(placer, units);
  const Placement placement = placer.place(counts);

  std::uint64_t total = 0;
  for (std::size_t u = 0; u < units.size(); ++u) total += std::uint64_t{counts[u]} * units[u].members.size();
  if (total > limits::kMaxTasks) {
    result.errors.push_back({"", "the plan has " + std::to_string(total) + " tasks, more than the limit of " +
                                     std::to_string(limits::kMaxTasks)});
    return result;
  }

  Plan plan;
  plan.program = program;
  plan.hosts = allocation.hosts;
  std::vector<std::size_t> unit_of(program.nodes.size());
  std::vector<std::size_t> member_index(program.nodes.size());
  for (std::size_t u = 0; u < units.size(); ++u) {
    for (std::size_t m = 0; m < units[u].members.size(); ++m) {
      unit_of[units[u].members[m]] = u;
      member_index[units[u].members[m]] = m;
    }
  }
  for (std::size_t i = 0; i < program.nodes.size(); ++i) {
    const NodeSpec& node = program.nodes[i];
    const std::size_t u = unit_of[i];
    std::size_t gpu_offset = 0;  // this member's GPUs within the unit's replica
    for (std::size_t m = 0; m < member_index[i]; ++m) gpu_offset += program.nodes[units[u].members[m]].gpus.value;
    const std::vector<ImplicitPort> implicit = implicit_ports(node);
    for (std::uint32_t r = 0; r < counts[u]; ++r) {
      Task t;
      t.id = static_cast<std::uint32_t>(plan.tasks.size());
      t.node = node.name.value;
      t.replica = r;
      t.replicas = counts[u];
      t.host = placement.host[u][r];
      t.cpus = node.cpus.value;
      const auto& gpus = placement.gpus[u][r];
      t.gpus.assign(gpus.begin() + static_cast<long>(gpu_offset),
                    gpus.begin() + static_cast<long>(gpu_offset + node.gpus.value));
      t.mem_mb = node.mem_mb.value;
      for (const auto& port : node.ports) t.ports.push_back(port.value);
      for (const ImplicitPort& port : implicit) {
        if (!port.first_replica_only || r == 0) t.ports.push_back(port.name);
      }
      plan.tasks.push_back(std::move(t));
    }
  }
  set_ranks(plan);
  result.plan = std::move(plan);
  return result;
}

}  // namespace slipway::core
