// Launch units: what a launcher starts as one process (one slipway-exec).
// A task on its own is a unit; the tasks of one colocate group with the
// same replica index share a unit (Launchpad's colocation).
//
// Contract: units come in plan order (the order of each unit's first
// task); a unit is a daemon only when all its tasks are; its retry budget
// is the smallest of its tasks' nodes. Worlds: the replicas of a node whose
// framework is torch, jax, horovod, paddle, tensorflow or mpi form one
// world, and every mpi node of the program is in one world (the program's
// one MPI world, MPMD); units that share a world node (through colocation)
// share a world.
// `world` numbers them from 0 in plan order (-1: the unit is in none).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "slipway/core/plan.hpp"

namespace slipway::launch {

struct LaunchUnit {
  std::vector<std::uint32_t> tasks;  // indices in Plan::tasks
  std::string name;                  // "learner.0", or "learner.0+replay.0"
  bool daemon = false;
  int max_retries = 0;
  std::uint32_t host = 0;
  int world = -1;
};

// Whether the replicas of a node of `framework` form a world.
bool forms_world(core::Framework framework);

std::vector<LaunchUnit> launch_units(const core::Plan& plan);

// The unit of each of the plan's `task_count` tasks, by index in
// Plan::tasks (units.size() for a task of no unit).
std::vector<std::size_t> unit_of_each_task(const std::vector<LaunchUnit>& units, std::size_t task_count);

}  // namespace slipway::launch
