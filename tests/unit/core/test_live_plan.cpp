// Live sets: the plan of the replicas that run now (ranks, sizes, handles'
// addresses) and the replica lists slipway-exec's --live takes.
#include "core_test_support.hpp"
#include "slipway/core/live_plan.hpp"
#include "slipway/core/plan_json.hpp"
#include "slipway/core/satellite_slots.hpp"

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

TEST_CASE("satellite slots: elastic replicas past the allocation, on hosts held for satellite jobs", "[core][live]") {
  // One host of 4 CPUs: trainer 2 of 4, actor 1 of 6 (learner takes a CPU).
  Plan plan = plan_ok(parse_ok(kElastic), hosts(1, 4));
  const auto before = plan.tasks.size();
  REQUIRE(plan.tasks_of("trainer").size() == 2);
  REQUIRE(plan.tasks_of("actor").size() == 1);
  CHECK(add_satellite_slots(plan, 0) == 0);
  CHECK(add_satellite_slots(plan, 3) == 5);  // trainer 2 more (its MAX), actor 3
  CHECK(plan.tasks.size() == before + 5);
  for (std::size_t k = 0; k < plan.tasks.size(); ++k) CHECK(plan.tasks[k].id == k);
  const auto trainer = plan.tasks_of("trainer");
  REQUIRE(trainer.size() == 4);
  CHECK(trainer[3]->replica == 3);
  CHECK(trainer[3]->replicas == 4);
  CHECK(trainer[0]->replicas == 4);
  const Host& held = plan.host(*trainer[2]);
  CHECK(held.satellite);
  CHECK(held.name == "satellite:trainer.2");
  CHECK(trainer[2]->group_rank == 1);  // a host of its own
  CHECK(trainer[3]->group_rank == 2);
  CHECK(trainer[3]->local_rank == 0);
  CHECK_FALSE(plan.host(*trainer[0]).satellite);
  CHECK(plan.tasks_of("actor").size() == 4);
  CHECK(plan.tasks_of("learner").size() == 1);
  // The plan file keeps which hosts are held for satellites.
  const Plan back = plan_from_json(plan_to_json(plan));
  CHECK(back.host(*back.tasks_of("trainer")[2]).satellite);
  CHECK_FALSE(back.host(*back.tasks_of("trainer")[0]).satellite);
}

TEST_CASE("the live/NODE record, and back", "[core][live]") {
  const LiveRecord record{2, 8, {0, 1, 2, 5}};
  CHECK(format_live_record(record) == "size=4 min=2 max=8 replicas=0-2,5");
  CHECK(parse_live_record("size=4 min=2 max=8 replicas=0-2,5", 100) == record);
  CHECK(parse_live_record("replicas=0-2,5 max=8 extra=1 min=2 size=4", 100) == record);
  CHECK(parse_live_record("size=0 min=0 max=3 replicas=", 100) == LiveRecord{0, 3, {}});
  CHECK_FALSE(parse_live_record("size=3 min=2 max=8 replicas=0-2,5", 100));  // size is not the count
  CHECK_FALSE(parse_live_record("size=4 min=2 replicas=0-2,5", 100));
  CHECK_FALSE(parse_live_record("size=4 min=x max=8 replicas=0-2,5", 100));
  CHECK_FALSE(parse_live_record("size=4 min=2 max=8 replicas=0-2,500", 100));
}
