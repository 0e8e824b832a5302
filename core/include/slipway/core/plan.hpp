// The planner: a Program placed onto an Allocation of hosts gives a Plan, the
// ordered list of tasks with their host, cpus, gpus, memory and ports.
//
// Contract: make_plan is deterministic. Hosts are filled in order (pack,
// first fit); nodes are placed in file order, a colocate group at the place
// of its first member; elastic nodes start at their minimum and then grow in
// rounds (one replica per elastic node per round, file order) while the whole
// plan still fits, up to their maximum. Tasks are ordered by node (file
// order), then replica; Task::id is the index in Plan::tasks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "slipway/core/topology.hpp"

namespace slipway::core {

struct Host {
  std::string name;
  std::string address;                  // empty = unknown (resolve `name`)
  std::uint32_t cpus = 0;
  std::uint32_t gpus = 0;               // GPU indices 0..gpus-1
  std::uint64_t mem_mb = 0;             // 0 = unknown, no memory accounting
  std::vector<std::string> partitions;  // empty = any partition
  // A place held for a satellite job (satellite_slots.hpp): the host is
  // not known until Slurm grants the job.
  bool satellite = false;
  friend bool operator==(const Host&, const Host&) = default;
};

struct Allocation {
  std::vector<Host> hosts;
};

// An allocation on this machine. Unset fields take this machine's values:
// one host, the CPUs this process may run on, 0 GPUs, the total memory.
// With several hosts, each is this machine again ("local0", "local1", ...);
// one host is named after this machine. Every address is 127.0.0.1.
struct LocalAllocationOptions {
  std::optional<std::uint32_t> hosts;
  std::optional<std::uint32_t> cpus_per_host;
  std::optional<std::uint32_t> gpus_per_host;
  std::optional<std::uint64_t> mem_per_host_mb;
};
Allocation local_allocation(const LocalAllocationOptions& options = {});

// What `slipway run` plans with on this machine, and so what `slipway plan`
// shows: local_allocation(options), except that when cpus_per_host is not
// given and the program asks for more CPUs (every node at its maximum
// replicas) than those hosts have, each host gets its share of what the
// program asks for: the program runs with this machine's CPUs
// oversubscribed, and `note` says so (it is empty otherwise). GPUs and
// memory are never oversubscribed.
struct LocalRunAllocation {
  Allocation allocation;
  std::string note;
};
LocalRunAllocation local_run_allocation(const Program& program, const LocalAllocationOptions& options = {});

struct Task {
  std::uint32_t id = 0;              // index in Plan::tasks
  std::string node;
  std::uint32_t replica = 0;
  std::uint32_t replicas = 1;        // of its node in this plan
  std::uint32_t host = 0;            // index in Plan::hosts
  std::uint32_t cpus = 1;
  std::vector<std::uint32_t> gpus;   // indices on its host
  std::uint64_t mem_mb = 0;
  std::vector<std::string> ports;    // names it listens on: user ports, then implicit ones
  std::uint32_t local_rank = 0;      // among its node's tasks on its host
  std::uint32_t local_world_size = 1;
  std::uint32_t group_rank = 0;      // index of its host among the hosts its node uses
  std::uint32_t group_world_size = 1;

  std::string name() const { return node + "." + std::to_string(replica); }  // "learner.3"
  friend bool operator==(const Task&, const Task&) = default;
};

struct Plan {
  Program program;                   // nodes as written (replicas = the range)
  std::vector<Host> hosts;
  std::vector<Task> tasks;

  const NodeSpec& node(const Task& task) const;  // the task's node (must exist)
  const Host& host(const Task& task) const;
  // The tasks of one node in replica order (empty if the node is unknown).
  std::vector<const Task*> tasks_of(std::string_view node) const;
  const Task* find_task(std::string_view node, std::uint32_t replica) const;
  // The most tasks on any one host (0 for no tasks).
  std::uint32_t busiest_host_tasks() const;
};

// Sets every task's local_rank, local_world_size, group_rank and
// group_world_size from the hosts of its node's tasks (in replica order):
// its rank among its node's tasks on its host, and its host's among the
// hosts its node uses, in host order.
void set_ranks(Plan& plan);

// A task's name as Task::name() writes it, "NODE.REPLICA", taken apart:
// nothing when there is no '.', the node is empty, or the replica is not
// decimal digits within 32 bits.
struct TaskName {
  std::string node;
  std::uint32_t replica = 0;
};
std::optional<TaskName> parse_task_name(std::string_view name);

// A problem that makes a program not fit, naming the node (and replica).
struct PlanError {
  std::string node;
  std::string message;
};

struct PlanResult {
  std::optional<Plan> plan;          // set iff errors is empty
  std::vector<PlanError> errors;
  bool ok() const { return plan.has_value(); }
};

PlanResult make_plan(const Program& program, const Allocation& allocation);

}  // namespace slipway::core
