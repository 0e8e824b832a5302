// ElasticControl: scale requests read and answered, the units a resize
// starts and retires with the line it says, idle replicas, and why a
// replica at its node's minimum cannot shrink.
#include <catch2/catch.hpp>

#include <chrono>

#include "../../lib/local_plan.hpp"
#include "elastic_control.hpp"
#include "slipway/launch/launch_units.hpp"

using namespace slipway;
using namespace std::chrono_literals;
using test::local_plan_of;
using Clock = std::chrono::steady_clock;

namespace {
const char* kTopology = R"(
[program]
name = "p"
[node.worker]
command = "true"
replicas = "1:3"
[node.worker.elastic]
grow = "manual"
settle = 0
[node.fixed]
command = "true"
replicas = 2
)";
}  // namespace

TEST_CASE("a manual elastic node starts at its minimum: its other replicas are idle") {
  const auto plan = local_plan_of(kTopology);
  const auto units = launch::launch_units(plan);
  launch::ElasticControl elastic(plan, units);
  REQUIRE(units[0].name == "worker.0");
  CHECK_FALSE(elastic.starts_idle(0));
  CHECK(elastic.starts_idle(1));
  CHECK(elastic.starts_idle(2));
  CHECK_FALSE(elastic.starts_idle(3));  // fixed.0: no elastic node
  CHECK(elastic.live_plan()->tasks_of("worker").size() == 1);
  CHECK(elastic.live_arguments() == std::vector<std::string>{"--live", "worker=0"});
  CHECK(elastic.live_record("worker"));
  CHECK_FALSE(elastic.live_record("fixed"));
  REQUIRE(elastic.replica_of(2));
  CHECK(elastic.replica_of(2)->replica == 2);
  CHECK_FALSE(elastic.replica_of(3));
}

TEST_CASE("scale requests: a count, a count and who asked, and what is refused with how to fix it") {
  const auto plan = local_plan_of(kTopology);
  const auto units = launch::launch_units(plan);
  launch::ElasticControl elastic(plan, units);
  const auto now = Clock::now();
  CHECK(elastic.scale_request("scale/worker", "3 slipway scale by ann", now).empty());
  CHECK(elastic.scale_request("scale/worker", "three", now).find("not a count") != std::string::npos);
  CHECK(elastic.scale_request("scale/worker", "2x", now).find("not a count") != std::string::npos);
  CHECK(elastic.scale_request("scale/fixed", "3", now).find("not elastic (replicas = 2)") != std::string::npos);
  CHECK(elastic.scale_request("scale/nobody", "3 ann", now) == "ann asked to scale nobody: the program has no such node");
  // A line a task wrote cannot start a line of its own.
  CHECK(elastic.scale_request("scale/no\nbody", "1", now).find('\n') == std::string::npos);
}

TEST_CASE("a resize starts the replicas it adds, retires those it drops, and says so") {
  const auto plan = local_plan_of(kTopology);
  const auto units = launch::launch_units(plan);
  launch::ElasticControl elastic(plan, units);
  const auto now = Clock::now();
  elastic.scale_request("scale/worker", "3 ann", now);
  const auto resizes = elastic.nodes().tick(now + 1s);
  REQUIRE(resizes.size() == 1);
  const auto grow = elastic.resize_steps(resizes[0], std::nullopt);
  CHECK(grow.start == std::vector<std::size_t>{1, 2});
  CHECK(grow.retire.empty());
  CHECK(grow.line.find("; starting worker.1, worker.2") != std::string::npos);
  CHECK(grow.event_cause.find("(1 -> 3 replicas)") != std::string::npos);
  CHECK(elastic.live_plan()->tasks_of("worker").size() == 3);  // renewed
  elastic.scale_request("scale/worker", "1 ann", now + 2s);
  const auto shrinks = elastic.nodes().tick(now + 3s);
  REQUIRE(shrinks.size() == 1);
  const auto shrink = elastic.resize_steps(shrinks[0], std::size_t{2});
  CHECK(shrink.retire == std::vector<std::size_t>{1, 2});
  CHECK(shrink.line.find("; stopping worker.1") != std::string::npos);
  CHECK(shrink.line.find("worker.2") == std::string::npos);  // it ended already
}

TEST_CASE("a replica at its node's minimum cannot shrink, and the line says why") {
  const auto plan = local_plan_of(kTopology);
  const auto units = launch::launch_units(plan);
  launch::ElasticControl elastic(plan, units);
  CHECK(elastic.cannot_shrink(0) == "worker runs its minimum of 1 replicas (replicas = \"1:3\") and cannot shrink");
  CHECK(elastic.cannot_shrink(3).empty());
}
