// make_plan: placement that fits, that does not fit (and says why), GPUs,
// memory, colocation, elastic growth, `nodes`, partitions, determinism.
#include "core_test_support.hpp"

using namespace slipway::core;
using slipway::core::test::hosts;
using slipway::core::test::parse_ok;
using slipway::core::test::plan_ok;

namespace {

std::vector<std::string> plan_errors(const Program& p, const Allocation& a) {
  PlanResult r = make_plan(p, a);
  REQUIRE_FALSE(r.ok());
  std::vector<std::string> out;
  for (const auto& e : r.errors) out.push_back(e.message);
  return out;
}

std::vector<std::uint32_t> host_of(const Plan& plan, const std::string& node) {
  std::vector<std::uint32_t> out;
  for (const Task* t : plan.tasks_of(node)) out.push_back(t->host);
  return out;
}

}  // namespace

TEST_CASE("tasks are ordered by node then replica and pack hosts in order", "[core][plan]") {
  const Program p = parse_ok(R"(
[program]
name = "pack"
[node.server]
command = "s"
ports = ["rpc"]
daemon = true
[node.worker]
command = "w"
replicas = 5
cpus = 2
handles = ["server"]
)");
  const Plan plan = plan_ok(p, hosts(3, 4));
  REQUIRE(plan.tasks.size() == 6);
  CHECK(plan.tasks[0].name() == "server.0");
  for (std::uint32_t i = 0; i < plan.tasks.size(); ++i) CHECK(plan.tasks[i].id == i);
  CHECK(host_of(plan, "server") == std::vector<std::uint32_t>{0});
  // fn1 has 3 cpus left after the server: one worker; then two per host.
  CHECK(host_of(plan, "worker") == std::vector<std::uint32_t>{0, 1, 1, 2, 2});
  const Task& w3 = *plan.find_task("worker", 3);
  CHECK(w3.replica == 3u);
  CHECK(w3.replicas == 5u);
  CHECK(w3.cpus == 2u);
  CHECK(plan.host(w3).name == "fn3");
  CHECK(plan.node(w3).name.value == "worker");
  CHECK(plan.tasks_of("nobody").empty());
  CHECK(plan.find_task("worker", 5) == nullptr);
  CHECK(plan.busiest_host_tasks() == 2u);
  CHECK(Plan{}.busiest_host_tasks() == 0u);
}

TEST_CASE("local and group ranks follow the node's hosts", "[core][plan]") {
  const Program p = parse_ok(R"(
[program]
name = "ranks"
[node.t]
command = "t"
replicas = 5
cpus = 2
)");
  const Plan plan = plan_ok(p, hosts(3, 4));  // 2 + 2 + 1
  const auto tasks = plan.tasks_of("t");
  std::vector<std::uint32_t> local, local_size, group;
  for (const Task* t : tasks) {
    local.push_back(t->local_rank);
    local_size.push_back(t->local_world_size);
    group.push_back(t->group_rank);
    CHECK(t->group_world_size == 3u);
  }
  CHECK(local == std::vector<std::uint32_t>{0, 1, 0, 1, 0});
  CHECK(local_size == std::vector<std::uint32_t>{2, 2, 2, 2, 1});
  CHECK(group == std::vector<std::uint32_t>{0, 0, 1, 1, 2});
}

TEST_CASE("a program that does not fit names the node, replica and what fell short", "[core][plan]") {
  const Program p = parse_ok(R"(
[program]
name = "tight"
[node.learner]
command = "l"
replicas = 4
cpus = 4
gpus = 1
)");
  Allocation a = hosts(3, 4, 1);
  a.hosts[2].cpus = 2;
  a.hosts[2].gpus = 0;
  const auto errors = plan_errors(p, a);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] ==
        "node 'learner' replica 2 needs 4 cpus and 1 gpu; no host has that left (largest free: 2 cpus, "
        "0 gpus on host fn3); ask for more or larger hosts, or lower the node's cpus/gpus/mem/replicas");
}

TEST_CASE("every node that does not fit is reported", "[core][plan]") {
  const Program p = parse_ok(R"(
[program]
name = "two"
[node.a]
command = "a"
cpus = 8
[node.b]
command = "b"
cpus = 1
gpus = 2
mem = "1G"
)");
  const auto errors = plan_errors(p, hosts(2, 4, 0, 512));
  REQUIRE(errors.size() == 2);
  CHECK_THAT(errors[0], Catch::StartsWith("node 'a' replica 0 needs 8 cpus and 0 gpus;"));
  CHECK_THAT(errors[1], Catch::StartsWith("node 'b' replica 0 needs 1 cpu, 2 gpus and 1024 MiB of memory;"));
  CHECK_THAT(errors[1], Catch::Contains("largest free: 4 cpus, 0 gpus, 512 MiB on host fn1"));
}

TEST_CASE("an empty allocation is reported", "[core][plan]") {
  const Program p = parse_ok("[program]\nname = \"x\"\n[node.a]\ncommand = \"a\"\n");
  const auto errors = plan_errors(p, Allocation{});
  CHECK(errors == std::vector<std::string>{"node 'a' needs a host, but the allocation has none"});
}

TEST_CASE("GPUs are handed out lowest index first, never twice on a host", "[core][plan]") {
  const Program p = parse_ok(R"(
[program]
name = "gpus"
[node.a]
command = "a"
replicas = 3
gpus = 2
cpus = 1
[node.b]
command = "b"
gpus = 1
)");
  const Plan plan = plan_ok(p, hosts(2, 8, 4));
  CHECK(plan.find_task("a", 0)->gpus == std::vector<std::uint32_t>{0, 1});
  CHECK(plan.find_task("a", 1)->gpus == std::vector<std::uint32_t>{2, 3});
  CHECK(plan.find_task("a", 2)->gpus == std::vector<std::uint32_t>{0, 1});
  CHECK(plan.find_task("a", 2)->host == 1u);
  CHECK(plan.find_task("b", 0)->gpus == std::vector<std::uint32_t>{2});
  CHECK(plan.find_task("b", 0)->host == 1u);
}

TEST_CASE("memory is accounted on hosts that know theirs", "[core][plan]") {
  const Program p = parse_ok(R"(
[program]
name = "mem"
[node.a]
command = "a"
replicas = 3
mem = "3G"
)");
  CHECK(host_of(plan_ok(p, hosts(2, 8, 0, 8192)), "a") == std::vector<std::uint32_t>{0, 0, 1});
  CHECK(host_of(plan_ok(p, hosts(2, 8, 0, 0)), "a") == std::vector<std::uint32_t>{0, 0, 0});  // unknown: no accounting
  CHECK(plan_ok(p, hosts(2, 8, 0, 8192)).tasks[0].mem_mb == 3072u);
}

TEST_CASE("colocated nodes share a host replica by replica", "[core][plan]") {
  const Program p = parse_ok(R"(
[program]
name = "colo"
[node.filler]
command = "f"
cpus = 3
[node.actor]
command = "a"
replicas = 3
cpus = 1
gpus = 1
colocate = "env"
[node.env]
command = "e"
replicas = 3
cpus = 2
colocate = "env"
)");
  const Plan plan = plan_ok(p, hosts(2, 6, 2));
  // fn1 has 3 cpus left after filler: one actor+env pair (3 cpus, 1 gpu);
  // the other two pairs go to fn2.
  const auto actors = host_of(plan, "actor");
  CHECK(actors == std::vector<std::uint32_t>{0, 1, 1});
  CHECK(host_of(plan, "env") == actors);
  for (std::uint32_t r = 0; r < 3; ++r) {
    CHECK(plan.find_task("actor", r)->host == plan.find_task("env", r)->host);
    CHECK(plan.find_task("env", r)->gpus.empty());
    CHECK(plan.find_task("actor", r)->gpus.size() == 1u);
  }
  // tasks stay ordered by node in the file, not by group
  CHECK(plan.tasks[1].node == "actor");
  CHECK(plan.tasks[4].node == "env");
}

TEST_CASE("a colocated group that does not fit is named with its nodes", "[core][plan]") {
  const Program p = parse_ok(R"(
[program]
name = "colo"
[node.a]
command = "a"
cpus = 3
colocate = "g"
[node.b]
command = "b"
cpus = 3
colocate = "g"
)");
  const auto errors = plan_errors(p, hosts(2, 4));
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::StartsWith("colocated group 'g' (nodes a, b) replica 0 needs 6 cpus and 0 gpus;"));
}

TEST_CASE("elastic nodes get as many replicas as fit, up to their maximum", "[core][plan]") {
  const char* topology = R"(
[program]
name = "elastic"
[node.learner]
command = "l"
cpus = 2
[node.actor]
command = "a"
replicas = "2:8"
)";
  const Program p = parse_ok(topology);
  CHECK(plan_ok(p, hosts(1, 6)).tasks_of("actor").size() == 4u);   // 6 - 2 cpus left
  CHECK(plan_ok(p, hosts(4, 8)).tasks_of("actor").size() == 8u);   // capped at max
  CHECK(plan_ok(p, hosts(1, 4)).tasks_of("actor").size() == 2u);   // exactly min
  const auto errors = plan_errors(p, hosts(1, 3));                  // min does not fit
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::StartsWith("node 'actor' replica 1 needs 1 cpu"));
  for (const Task* t : plan_ok(p, hosts(1, 6)).tasks_of("actor")) CHECK(t->replicas == 4u);
}

TEST_CASE("several elastic nodes grow in turns, one replica each per round", "[core][plan]") {
  const Program p = parse_ok(R"(
[program]
name = "turns"
[node.a]
command = "a"
replicas = "1:10"
[node.b]
command = "b"
replicas = "1:3"
[node.c]
command = "c"
replicas = "2:10"
)");
  const Plan plan = plan_ok(p, hosts(1, 12));
  // rounds: (1,1,2) -> (2,2,3) -> (3,3,4) -> (4,3,5) = 12 cpus
  CHECK(plan.tasks_of("a").size() == 4u);
  CHECK(plan.tasks_of("b").size() == 3u);
  CHECK(plan.tasks_of("c").size() == 5u);
  const Plan odd = plan_ok(p, hosts(1, 11));  // the partial round goes in file order
  CHECK(odd.tasks_of("a").size() == 4u);
  CHECK(odd.tasks_of("b").size() == 3u);
  CHECK(odd.tasks_of("c").size() == 4u);
}

TEST_CASE("`nodes` spreads replicas over that many hosts in blocks", "[core][plan]") {
  const Program p = parse_ok(R"(
[program]
name = "spread"
[node.first]
command = "f"
cpus = 3
[node.t]
command = "t"
replicas = 5
nodes = 2
)");
  const Plan plan = plan_ok(p, hosts(3, 4));
  // fn1 has 1 cpu left: too little for either block (3 and 2), so fn2 and fn3.
  CHECK(host_of(plan, "t") == std::vector<std::uint32_t>{1, 1, 1, 2, 2});
  CHECK(plan.find_task("t", 4)->group_world_size == 2u);
  Allocation roomy = hosts(2, 5);  // fn1 keeps 2 cpus: the smaller block goes back to it
  CHECK(host_of(plan_ok(p, roomy), "t") == std::vector<std::uint32_t>{1, 1, 1, 0, 0});
  const auto errors = plan_errors(p, hosts(2, 4));
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::StartsWith("node 't' replicas 3..4 must share one host ('nodes' = 2) and need 2 cpus and 0 gpus together"));
}

TEST_CASE("partitions restrict the hosts a node may use", "[core][plan]") {
  const Program p = parse_ok(R"(
[program]
name = "parts"
[node.g]
command = "g"
partition = "gpu"
replicas = 2
[node.c]
command = "c"
partition = "debug,cpu"
)");
  Allocation a = hosts(3, 1);
  a.hosts[0].partitions = {"cpu"};
  a.hosts[1].partitions = {"gpu"};
  a.hosts[2].partitions = {"gpu", "cpu"};
  const Plan plan = plan_ok(p, a);
  CHECK(host_of(plan, "g") == std::vector<std::uint32_t>{1, 2});
  CHECK(host_of(plan, "c") == std::vector<std::uint32_t>{0});
  a.hosts[1].partitions = {"cpu"};
  a.hosts[2].partitions = {"cpu"};
  const auto errors = plan_errors(p, a);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::StartsWith("node 'g' asks for partition 'gpu', but no host of the allocation is in it"));
}

TEST_CASE("framework ports appear on the tasks that listen on them", "[core][plan]") {
  const Program p = parse_ok(R"(
[program]
name = "fw"
[node.trainer]
command = "t"
replicas = 2
framework = "torch"
ports = ["metrics"]
[node.ps]
command = "p"
replicas = 2
framework = "paddle"
)");
  const Plan plan = plan_ok(p, hosts(1, 8));
  CHECK(plan.find_task("trainer", 0)->ports == std::vector<std::string>{"metrics", "torch_master"});
  CHECK(plan.find_task("trainer", 1)->ports == std::vector<std::string>{"metrics"});
  CHECK(plan.find_task("ps", 1)->ports == std::vector<std::string>{"paddle_trainer"});
}

TEST_CASE("planning is deterministic", "[core][plan]") {
  const Program p = parse_ok(R"(
[program]
name = "det"
[node.a]
command = "a"
replicas = "1:50"
cpus = 3
gpus = 1
[node.b]
command = "b"
replicas = 7
colocate = "x"
[node.c]
command = "c"
replicas = 7
colocate = "x"
)");
  const Plan first = plan_ok(p, hosts(5, 13, 3));
  for (int i = 0; i < 3; ++i) CHECK(plan_ok(p, hosts(5, 13, 3)).tasks == first.tasks);
}

TEST_CASE("local allocations describe this machine or simulated copies of it", "[core][plan]") {
  const Allocation here = local_allocation();
  REQUIRE(here.hosts.size() == 1);
  CHECK(here.hosts[0].cpus >= 1u);
  CHECK(here.hosts[0].gpus == 0u);
  CHECK(here.hosts[0].mem_mb > 0u);
  CHECK(here.hosts[0].address == "127.0.0.1");
  CHECK_FALSE(here.hosts[0].name.empty());

  const Allocation three = local_allocation({3, 16, 2, 4096});
  REQUIRE(three.hosts.size() == 3);
  CHECK(three.hosts[2].name == "local2");
  CHECK(three.hosts[1].cpus == 16u);
  CHECK(three.hosts[1].gpus == 2u);
  CHECK(three.hosts[1].mem_mb == 4096u);
}
