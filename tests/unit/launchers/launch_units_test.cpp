// Launch units: one per task, one per colocate group replica.
#include <catch2/catch.hpp>

#include <map>

#include "slipway/core/plan.hpp"
#include "../../lib/local_plan.hpp"
#include "slipway/launch/launch_units.hpp"

using namespace slipway;

using test::local_plan_of;

TEST_CASE("each task is its own unit without colocation") {
  auto plan = local_plan_of(R"(
[program]
name = "p"
[node.a]
command = "true"
replicas = 2
max_retries = 3
[node.d]
command = "true"
daemon = true
)");
  auto units = launch::launch_units(plan);
  REQUIRE(units.size() == 3);
  CHECK(units[0].name == "a.0");
  CHECK(units[1].name == "a.1");
  CHECK(units[1].max_retries == 3);
  CHECK_FALSE(units[1].daemon);
  CHECK(units[2].name == "d.0");
  CHECK(units[2].daemon);
}

TEST_CASE("a colocate group shares one unit per replica") {
  auto plan = local_plan_of(R"(
[program]
name = "p"
[node.learner]
command = "true"
replicas = 2
colocate = "g"
max_retries = 4
[node.replay]
command = "true"
replicas = 2
colocate = "g"
daemon = true
max_retries = 1
)");
  auto units = launch::launch_units(plan);
  REQUIRE(units.size() == 2);
  CHECK(units[0].name == "learner.0+replay.0");
  CHECK(units[0].tasks.size() == 2);
  CHECK(units[1].name == "learner.1+replay.1");
  CHECK(units[1].max_retries == 1);
  CHECK_FALSE(units[1].daemon);  // a daemon only when all its tasks are
  // Every task knows its unit, whichever the plan's order of tasks.
  const auto unit_of = launch::unit_of_each_task(units, plan.tasks.size());
  REQUIRE(unit_of.size() == 4);
  for (std::size_t u = 0; u < units.size(); ++u) {
    for (std::uint32_t t : units[u].tasks) CHECK(unit_of[t] == u);
  }
}

TEST_CASE("the replicas of a torch node are one world; every mpi node shares one; none are none") {
  auto plan = local_plan_of(R"(
[program]
name = "worlds"
[node.trainer]
command = "true"
framework = "torch"
replicas = 2
[node.actor]
command = "true"
replicas = 2
[node.solver]
command = "true"
framework = "mpi"
[node.viz]
command = "true"
framework = "mpi"
[node.jaxer]
command = "true"
framework = "jax"
)");
  std::map<std::string, int> world;
  for (const auto& unit : slipway::launch::launch_units(plan)) world[unit.name] = unit.world;
  CHECK(world.at("trainer.0") == 0);
  CHECK(world.at("trainer.1") == 0);
  CHECK(world.at("actor.0") == -1);
  CHECK(world.at("actor.1") == -1);
  CHECK(world.at("solver.0") == 1);
  CHECK(world.at("viz.0") == 1);  // MPMD: one MPI world
  CHECK(world.at("jaxer.0") == 2);
}

TEST_CASE("units colocating two worlds' replicas merge the worlds") {
  auto plan = local_plan_of(R"(
[program]
name = "merged"
[node.a]
command = "true"
framework = "torch"
replicas = 2
colocate = "g"
[node.b]
command = "true"
framework = "jax"
replicas = 2
colocate = "g"
[node.c]
command = "true"
framework = "paddle"
)");
  std::map<std::string, int> world;
  for (const auto& unit : slipway::launch::launch_units(plan)) world[unit.name] = unit.world;
  CHECK(world.at("a.0+b.0") == 0);
  CHECK(world.at("a.1+b.1") == 0);
  CHECK(world.at("c.0") == 1);
}
