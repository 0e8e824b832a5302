// Which heterogeneous-job components a program asks for.
#include <catch2/catch.hpp>

#include "program_text.hpp"
#include "slipway/jobscripts/batch_components.hpp"

using namespace slipway::jobscripts;
using Names = std::vector<std::string>;

TEST_CASE("nodes of one shape share a component", "[jobscripts][components]") {
  const auto program = program_from(R"(
[program]
name = "p"
[node.a]
command = "a"
replicas = 3
[node.b]
command = "b"
[node.c]
command = "c"
cpus = 2
)");
  const auto c = plan_components(program);
  REQUIRE(c.size() == 2);
  CHECK(c[0].nodes == Names{"a", "b"});
  CHECK(c[0].members == Names{"a x3", "b"});
  CHECK(c[0].ntasks == 4);
  CHECK(c[0].cpus_per_task == 1);
  CHECK(c[1].nodes == Names{"c"});
  CHECK(c[1].cpus_per_task == 2);
  CHECK(c[1].ntasks == 1);
}

TEST_CASE("partition, gpus and memory per cpu make distinct components",
          "[jobscripts][components]") {
  const auto program = program_from(R"(
[program]
name = "p"
[node.learner]
command = "l"
replicas = 2
cpus = 4
gpus = 1
mem = "16G"
partition = "gpu"
[node.actor]
command = "a"
replicas = "8:32"
mem = "2G"
partition = "cpu"
[node.eval]
command = "e"
mem = "4G"
partition = "cpu"
)");
  const auto c = plan_components(program);
  REQUIRE(c.size() == 3);
  CHECK(c[0].partition == "gpu");
  CHECK(c[0].gpus_per_task == 1);
  CHECK(c[0].mem_per_cpu_mb == 4096);
  CHECK(c[1].members == Names{"actor x8:32"});
  CHECK(c[1].ntasks == 32);  // elastic nodes count at their maximum
  CHECK(c[1].mem_per_cpu_mb == 2048);
  CHECK(c[2].mem_per_cpu_mb == 4096);
}

TEST_CASE("a node spread over hosts gets its own component", "[jobscripts][components]") {
  const auto program = program_from(R"(
[program]
name = "p"
[node.t]
command = "t"
replicas = 4
nodes = 2
[node.u]
command = "u"
)");
  const auto c = plan_components(program);
  REQUIRE(c.size() == 2);
  CHECK(c[0].hosts == 2);
  CHECK(c[0].ntasks == 4);
  CHECK(c[1].hosts == 0);
}

TEST_CASE("a colocate group is one task per replica holding its members' sum",
          "[jobscripts][components]") {
  const auto program = program_from(R"(
[program]
name = "p"
[node.x]
command = "x"
replicas = 2
cpus = 2
mem = "3G"
colocate = "g"
[node.solo]
command = "s"
[node.y]
command = "y"
replicas = 2
gpus = 1
mem = "1G"
colocate = "g"
)");
  const auto c = plan_components(program);
  REQUIRE(c.size() == 2);
  CHECK(c[0].nodes == Names{"x", "y"});
  CHECK(c[0].members == Names{"x x2", "y x2"});
  CHECK(c[0].hosts == 0);
  CHECK(c[0].ntasks == 2);
  CHECK(c[0].cpus_per_task == 3);
  CHECK(c[0].gpus_per_task == 1);
  CHECK(c[0].mem_per_cpu_mb == 1366);  // 4 GiB over 3 cpus, rounded up
  CHECK(c[1].nodes == Names{"solo"});
}

TEST_CASE("the job's time is the longest node time", "[jobscripts][components]") {
  CHECK(program_time_minutes(program_from(R"(
[program]
name = "p"
[node.a]
command = "a"
time = "30"
[node.b]
command = "b"
time = "1:30:00"
[node.c]
command = "c"
)")) == 90);
  CHECK(program_time_minutes(program_from("[program]\nname = \"p\"\n[node.a]\ncommand = \"a\"\n")) == 0);
}
