// Launch units: one per task, one per colocate group replica.
#include <catch2/catch.hpp>

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
}
