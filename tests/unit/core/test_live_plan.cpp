// Live sets: the plan of the replicas that run now (ranks, sizes, handles'
// addresses) and the replica lists slipway-exec's --live takes.
#include "core_test_support.hpp"
#include "slipway/core/live_plan.hpp"

using namespace slipway::core;
using slipway::core::test::hosts;
using slipway::core::test::parse_ok;
using slipway::core::test::plan_ok;
using slipway::core::test::resolve_all;

namespace {

const char* kElastic = R"(
[program]
name = "elastic"
[node.trainer]
command = "train"
framework = "torch"
replicas = "2:4"
[node.actor]
command = "act"
replicas = "1:6"
ports = ["obs"]
[node.learner]
command = "learn"
handles = ["actor"]
)";

}  // namespace

TEST_CASE("a live plan keeps only the live replicas, counted and ranked among themselves", "[core][live]") {
  const Plan full = plan_ok(parse_ok(kElastic), hosts(2, 6));
  REQUIRE(full.tasks_of("trainer").size() == 4);
  REQUIRE(full.tasks_of("actor").size() == 6);
  const Plan live = live_plan(full, {{"trainer", {0, 1}}, {"actor", {0, 2, 5}}});
  CHECK(live.tasks.size() == 2 + 3 + 1);
  for (std::size_t i = 0; i < live.tasks.size(); ++i) CHECK(live.tasks[i].id == i);
  const auto trainers = live.tasks_of("trainer");
  REQUIRE(trainers.size() == 2);
  for (const Task* t : trainers) CHECK(t->replicas == 2);
  const auto actors = live.tasks_of("actor");
  REQUIRE(actors.size() == 3);
  CHECK(actors[0]->replica == 0);
  CHECK(actors[1]->replica == 2);
  CHECK(actors[2]->replica == 5);
  for (const Task* t : actors) CHECK(t->replicas == 3);
  // The torch variables follow the live world.
  const Task& rank1 = *live.find_task("trainer", 1);
  const auto env = framework_environment(live, rank1, {0, 1}, resolve_all(live));
  CHECK(env.at("WORLD_SIZE") == "2");
  CHECK(env.at("RANK") == "1");
  std::uint32_t local_sizes = 0;
  for (const Task* t : trainers) local_sizes += t->local_rank == 0 ? t->local_world_size : 0;
  CHECK(local_sizes == 2);
  // A handle lists the live replicas only, in replica order.
  const Task& learner = *live.find_task("learner", 0);
  const auto contract = contract_environment(live, learner, {}, resolve_all(live));
  const std::string list = contract.at("SLIPWAY_ADDR_ACTOR_OBS");
  CHECK(std::count(list.begin(), list.end(), ',') == 2);
  CHECK(required_addresses(live, learner).size() == 3);
  // A node without a live set keeps every planned task.
  CHECK(live_plan(full, {}).tasks.size() == full.tasks.size());
}

TEST_CASE("replica lists: ranges of three or more, and back", "[core][live]") {
  CHECK(format_replica_list({}) == "");
  CHECK(format_replica_list({0, 1, 2, 5, 7, 8}) == "0-2,5,7,8");
  CHECK(format_replica_list({3}) == "3");
  CHECK(parse_replica_list("0-2,5,7,8", 10) == std::vector<std::uint32_t>{0, 1, 2, 5, 7, 8});
  CHECK(parse_replica_list("5,0-1,1", 10) == std::vector<std::uint32_t>{0, 1, 5});
  CHECK(parse_replica_list("", 10) == std::vector<std::uint32_t>{});
  for (const char* bad : {"a", "1-", "-1", "3-1", "1,,2", "0-10", "10", "1 ", "4294967296"}) {
    INFO(bad);
    CHECK_FALSE(parse_replica_list(bad, 10));
  }
  auto arg = parse_live_set("trainer=0-3", 4);
  REQUIRE(arg);
  CHECK(arg->node == "trainer");
  CHECK(arg->replicas.size() == 4);
  CHECK(format_live_set("actor", {0, 2}) == "actor=0,2");
  CHECK_FALSE(parse_live_set("=0", 4));
  CHECK_FALSE(parse_live_set("trainer", 4));
}
