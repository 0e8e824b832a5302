// The heterogeneous job a program asks Slurm for: one component per distinct
// resource shape and placement, computed from the topology alone (no
// allocation exists yet when a batch script is written).
//
// Contract: plan_components is deterministic. Components keep the file order
// of their first node. A node joins the component of every other node with
// the same partition, constraint, account, qos, cpus, gpus and memory per
// CPU; a node that asks to spread over N hosts (key `nodes`) gets its own
// component with --nodes=N; a colocate group (whose members share hosts
// replica by replica) gets its own component with one task per replica that
// holds the sum of its members' cpus, gpus and memory. Elastic nodes count at
// their maximum.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "slipway/core/topology.hpp"

namespace slipway::jobscripts {

struct Component {
  std::vector<std::string> nodes;    // node names, in file order
  std::vector<std::string> members;  // the same as "learner x2", "replay", "actor x2:8"
  std::string partition;             // empty: the cluster's default
  std::string constraint;
  std::string account;
  std::string qos;
  std::uint32_t hosts = 0;           // --nodes; 0: Slurm chooses
  std::uint32_t ntasks = 1;
  std::uint32_t cpus_per_task = 1;
  std::uint32_t gpus_per_task = 0;
  std::uint64_t mem_per_cpu_mb = 0;  // 0: not requested
};

std::vector<Component> plan_components(const core::Program& program);

// The longest `time` of the program's nodes (minutes), 0 when none is set:
// the job's time limit.
std::uint32_t program_time_minutes(const core::Program& program);

}  // namespace slipway::jobscripts
