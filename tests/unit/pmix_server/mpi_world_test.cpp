// The MPI world of a plan: ranks, applications, hosts, member ranges, the
// local view of one server and namespace names.
#include <catch2/catch.hpp>

#include "slipway/core/topology.hpp"
#include "slipway/pmix/mpi_world.hpp"

using namespace slipway;
using namespace slipway::pmix;

namespace {

core::Plan plan_of(const std::string& toml, std::vector<std::uint32_t> cpus_per_host) {
  auto parsed = core::parse_topology(toml, "/tmp/world.toml");
  for (const auto& d : parsed.diagnostics) UNSCOPED_INFO(d.message);
  REQUIRE(parsed.ok());
  core::Allocation allocation;
  for (std::size_t i = 0; i < cpus_per_host.size(); ++i) {
    core::Host h;
    h.name = "h" + std::to_string(i);
    h.cpus = cpus_per_host[i];
    allocation.hosts.push_back(h);
  }
  auto planned = core::make_plan(*parsed.program, allocation);
  for (const auto& e : planned.errors) UNSCOPED_INFO(e.node + ": " + e.message);
  REQUIRE(planned.ok());
  return *planned.plan;
}

const char* kMixed = R"(
[program]
name = "mixed"
[node.head]
command = "true"
[node.solver]
command = "solver --fast"
replicas = 3
framework = "mpi"
[node.viz]
command = "true"
replicas = 2
[node.io]
command = "io"
replicas = 2
framework = "mpi"
)";

}  // namespace

TEST_CASE("world: a program without mpi nodes has no MPI world", "[pmix][world]") {
  auto plan = plan_of("[program]\nname = \"p\"\n[node.a]\ncommand = \"true\"\n", {4});
  CHECK_FALSE(MpiWorld::from_plan(plan, "x").has_value());
}

TEST_CASE("world: ranks follow plan order over the mpi nodes only; each node is an application",
          "[pmix][world]") {
  auto plan = plan_of(kMixed, {3, 3, 2});
  auto world = MpiWorld::from_plan(plan, "abc");
  REQUIRE(world);
  CHECK(world->nspace() == "slipway-mixed-abc");
  REQUIRE(world->size() == 5);
  REQUIRE(world->apps().size() == 2);
  CHECK(world->apps()[0].node == "solver");
  CHECK(world->apps()[0].first_rank == 0);
  CHECK(world->apps()[0].size == 3);
  CHECK(world->apps()[0].argv == std::vector<std::string>{"solver", "--fast"});
  CHECK(world->apps()[1].node == "io");
  CHECK(world->apps()[1].appnum == 1);
  CHECK(world->apps()[1].first_rank == 3);
  for (std::uint32_t r = 0; r < world->size(); ++r) {
    const WorldProc& p = world->procs()[r];
    CHECK(p.rank == r);
    CHECK(plan.tasks[p.task_id].node == p.node);
    CHECK(plan.tasks[p.task_id].replica == p.replica);
    CHECK(world->hosts()[p.nodeid].name == plan.hosts[plan.tasks[p.task_id].host].name);
  }
  CHECK(world->procs()[4].node == "io");
  CHECK(world->procs()[4].app_rank == 1);
  CHECK(world->rank_of("io", 1) == 4u);
  CHECK(world->rank_of("solver", 2) == 2u);
  CHECK_FALSE(world->rank_of("solver", 3).has_value());
  CHECK_FALSE(world->rank_of("viz", 0).has_value());
  CHECK(world->task_name(3) == "io.0");
}

TEST_CASE("world: the world's hosts are the plan hosts its ranks use, numbered in first use",
          "[pmix][world]") {
  auto plan = plan_of(kMixed, {3, 3, 2});
  auto world = MpiWorld::from_plan(plan, "abc");
  REQUIRE(world);
  std::size_t placed = 0;
  for (const WorldHost& h : world->hosts()) {
    CHECK(h.nodeid < world->hosts().size());
    CHECK(std::is_sorted(h.ranks.begin(), h.ranks.end()));
    for (std::uint32_t r : h.ranks) CHECK(world->procs()[r].nodeid == h.nodeid);
    placed += h.ranks.size();
  }
  CHECK(placed == world->size());
  CHECK(world->hosts()[world->procs()[0].nodeid].nodeid == 0);
}

TEST_CASE("world: member ranges cover ranks with the fewest runs", "[pmix][world]") {
  auto plan = plan_of(kMixed, {8});
  auto world = MpiWorld::from_plan(plan, "");
  REQUIRE(world);
  CHECK(world->member_ranges(world->all_ranks()) ==
        std::vector<MemberRange>{{"solver", 0, 3}, {"io", 0, 2}});
  CHECK(world->member_ranges({4, 0, 2, 2}) ==
        std::vector<MemberRange>{{"solver", 0, 1}, {"solver", 2, 1}, {"io", 1, 1}});
  CHECK(world->member_ranges({1, 2, 3}) == std::vector<MemberRange>{{"solver", 1, 2}, {"io", 0, 1}});
  CHECK_THROWS_AS(world->member_ranges({5}), std::out_of_range);
}

TEST_CASE("world: a local view numbers its ranks from 0 in rank order", "[pmix][world]") {
  auto plan = plan_of(kMixed, {8});
  auto world = MpiWorld::from_plan(plan, "");
  REQUIRE(world);
  LocalView local(*world, {4, 1, 1});
  CHECK(local.ranks() == std::vector<std::uint32_t>{1, 4});
  CHECK(local.hosts(4));
  CHECK_FALSE(local.hosts(0));
  CHECK(local.local_rank(1) == std::uint16_t{0});
  CHECK(local.local_rank(4) == std::uint16_t{1});
  CHECK_FALSE(local.local_rank(2).has_value());
  CHECK_THROWS_AS(LocalView(*world, {9}), std::out_of_range);
}

TEST_CASE("world: namespace names are sanitized and bounded", "[pmix][world]") {
  CHECK(namespace_name("impala", "1a2b") == "slipway-impala-1a2b");
  CHECK(namespace_name("a b/c", "") == "slipway-a_b_c");
  std::string long_name = namespace_name(std::string(500, 'x'), "tail");
  CHECK(long_name.size() <= 200);
  CHECK(long_name.substr(long_name.size() - 5) == "-tail");
  CHECK(short_hash("x") == short_hash("x"));
  CHECK(short_hash("x") != short_hash("y"));
  CHECK(short_hash("").size() == 16);
}
