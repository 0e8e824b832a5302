// Satellite slots: the replicas of elastic nodes that the allocation has
// no room for, planned on hosts held for satellite jobs (extra Slurm jobs
// the controller submits to grow a node; docs/elastic.md).
//
// Contract: add_satellite_slots(plan, jobs) gives every elastic node that
// is not colocated and whose planned replicas are fewer than its MAX up to
// `jobs` more replicas (never past MAX), each on a host of its own appended
// to Plan::hosts: Host::satellite set, named "satellite:NODE.R", with the
// node's cpus, gpus and memory as its capacity. Tasks stay ordered by node
// then replica (ids renumbered), every task of such a node gets the new
// Task::replicas, and ranks are recomputed. Returns the tasks added.
#pragma once

#include <cstddef>
#include <cstdint>

#include "slipway/core/plan.hpp"

namespace slipway::core {

std::size_t add_satellite_slots(Plan& plan, std::uint32_t jobs);

}  // namespace slipway::core
