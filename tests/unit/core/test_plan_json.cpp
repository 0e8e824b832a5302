// Plan <-> JSON: the round trip keeps everything a task needs; reading
// rejects wrong types, broken references and oversized input by path.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core_test_support.hpp"
#include "slipway/core/plan_json.hpp"

using namespace slipway::core;
using nlohmann::json;
using slipway::core::test::hosts;
using slipway::core::test::parse_ok;
using slipway::core::test::plan_ok;

namespace {

Plan sample_plan() {
  const Program p = parse_ok(R"(
[program]
name = "rt"
max_retries = 2
[node.replay]
command = ["replay", "--size", "10"]
ports = ["grpc", "admin"]
daemon = true
wrapper = "nice -n 5"
[node.learner]
command = "python3 learner.py"
replicas = 2
cpus = 2
gpus = 1
mem = "2G"
framework = "torch"
handles = ["replay"]
env = { B = "2", A = "1" }
workdir = "/work/learn"
partition = "gpu"
constraint = "a100"
account = "acct"
qos = "hi"
time = "2:00:00"
nodes = 2
ucx = { tls = "tcp", net_devices = "eth0" }
[node.actor]
command = "python3 actor.py"
replicas = "1:3"
handles = ["replay"]
type = "courier"
colocate = "c"
)");
  Allocation a = hosts(2, 8, 2, 65536);
  a.hosts[0].partitions = {"gpu", "cpu"};
  a.hosts[1].partitions = {"gpu"};
  return plan_ok(p, a);
}

json sample_json() { return plan_to_json(sample_plan()); }

std::string read_error(const json& j) {
  try {
    plan_from_json(j);
  } catch (const PlanJsonError& e) {
    return e.what();
  }
  FAIL("plan_from_json accepted invalid input");
  return {};
}

}  // namespace

TEST_CASE("a plan survives the JSON round trip", "[core][plan-json]") {
  const Plan plan = sample_plan();
  const json j = plan_to_json(plan);
  const Plan back = plan_from_json(j);
  CHECK(plan_to_json(back) == j);
  CHECK(back.tasks == plan.tasks);
  CHECK(back.hosts == plan.hosts);
  REQUIRE(back.program.nodes.size() == 3);
  CHECK(back.program.name.value == "rt");
  CHECK(back.program.max_retries.value == 2u);
  CHECK(back.program.source_file == plan.program.source_file);
  const NodeSpec& learner = back.program.nodes[1];
  CHECK(learner.name.value == "learner");
  CHECK(learner.command.value == std::vector<std::string>{"python3", "learner.py"});
  CHECK(learner.framework.value == Framework::torch);
  CHECK(learner.handles_node("replay"));
  CHECK(learner.mem_mb.value == 2048u);
  CHECK(learner.workdir.value == "/work/learn");
  CHECK(learner.time_minutes.value == 120u);
  CHECK(learner.hosts.value == 2u);
  CHECK(learner.ucx.value.tls == std::optional<std::string>("tcp"));
  CHECK_FALSE(learner.ucx.value.rndv_thresh.has_value());
  CHECK(learner.env.size() == 2);
  CHECK_FALSE(learner.name.where.known());  // locations do not travel
  const NodeSpec& replay = back.program.nodes[0];
  CHECK(replay.daemon.value);
  CHECK(replay.wrapper.value == std::vector<std::string>{"nice", "-n", "5"});
  CHECK(back.program.nodes[2].type.value == NodeType::courier);
  CHECK(back.program.nodes[2].replicas.value == ReplicaRange{1, 3});
  CHECK(back.program.nodes[2].colocate.value == "c");
}

TEST_CASE("the JSON carries what slipway-exec needs under documented names", "[core][plan-json]") {
  const json j = sample_json();
  CHECK(j["version"] == kPlanJsonVersion);
  CHECK(j["program"]["name"] == "rt");
  const json& learner = j["nodes"][1];
  CHECK(learner["command"] == json::array({"python3", "learner.py"}));
  CHECK(learner["env"] == json({{"A", "1"}, {"B", "2"}}));
  CHECK(learner["framework"] == "torch");
  CHECK(learner["replicas"] == json({{"min", 2}, {"max", 2}}));
  CHECK(learner["ucx"] == json({{"tls", "tcp"}, {"net_devices", "eth0"}}));
  const json& task = j["tasks"][1];
  CHECK(task["node"] == "learner");
  CHECK(task["replica"] == 0);
  CHECK(task["ports"] == json::array({"torch_master"}));
  CHECK(task["gpus"] == json::array({0}));
  CHECK(j["hosts"][0]["partitions"] == json::array({"gpu", "cpu"}));
}

TEST_CASE("reading names the path of a missing or mistyped field", "[core][plan-json]") {
  json j = sample_json();
  j["tasks"][2].erase("host");
  CHECK_THAT(read_error(j), Catch::Contains("plan.tasks[2].host: missing"));

  j = sample_json();
  j["nodes"][1]["cpus"] = "2";
  CHECK_THAT(read_error(j), Catch::Contains("plan.nodes[1].cpus: must be a non-negative integer"));

  j = sample_json();
  j["nodes"][0]["command"] = json::array({"ok", 5});
  CHECK_THAT(read_error(j), Catch::Contains("plan.nodes[0].command[1]: must be a string"));

  j = sample_json();
  j["nodes"][0]["framework"] = "pytorch";
  CHECK_THAT(read_error(j), Catch::Contains("unknown framework 'pytorch'"));

  j = sample_json();
  j["tasks"][1]["gpus"] = json::array({-1});
  CHECK_THAT(read_error(j), Catch::Contains("plan.tasks[1].gpus[0]: must be a non-negative integer"));

  j = sample_json();
  j["tasks"][0]["cpus"] = -1;
  CHECK_THAT(read_error(j), Catch::Contains("plan.tasks[0].cpus: must be a non-negative integer"));

  CHECK_THAT(read_error(json::array()), Catch::Contains("plan: must be an object"));
}

TEST_CASE("reading rejects broken references and versions", "[core][plan-json]") {
  json j = sample_json();
  j["version"] = 2;
  CHECK_THAT(read_error(j), Catch::Contains("plan.version: is not 1"));

  j = sample_json();
  j["tasks"][0]["host"] = 7;
  CHECK_THAT(read_error(j), Catch::Contains("plan.tasks[0].host: names no host of the plan"));

  j = sample_json();
  j["tasks"][0]["node"] = "ghost";
  CHECK_THAT(read_error(j), Catch::Contains("plan.tasks[0].node: names no node of the plan"));

  j = sample_json();
  j["tasks"][1]["gpus"] = json::array({5});
  CHECK_THAT(read_error(j), Catch::Contains("plan.tasks[1].gpus: names a GPU its host does not have"));

  j = sample_json();
  j["tasks"][1]["replica"] = 2;
  CHECK_THAT(read_error(j), Catch::Contains("plan.tasks[1].replica: must be less than replicas"));

  j = sample_json();
  j["tasks"][1]["id"] = 0;
  CHECK_THAT(read_error(j), Catch::Contains("plan.tasks[1].id: must be the task's index 1"));

  j = sample_json();
  j["nodes"][2]["handles"] = json::array({"ghost"});
  CHECK_THAT(read_error(j), Catch::Contains("handles unknown node 'ghost'"));

  j = sample_json();
  j["nodes"][2]["name"] = "learner";
  CHECK_THAT(read_error(j), Catch::Contains("plan.nodes[2].name: is used twice"));
}

TEST_CASE("reading bounds counts and lengths", "[core][plan-json]") {
  json j = sample_json();
  j["nodes"][0]["command"] = json::array();
  for (int i = 0; i < 5000; ++i) j["nodes"][0]["command"].push_back("x");
  CHECK_THAT(read_error(j), Catch::Contains("plan.nodes[0].command: has more than 4096 entries"));

  j = sample_json();
  j["nodes"][0]["replicas"]["max"] = 1u << 30;
  CHECK_THAT(read_error(j), Catch::Contains("plan.nodes[0].replicas.max: must be at most 100000"));

  j = sample_json();
  j["nodes"][0]["workdir"] = std::string(70000, 'a');
  CHECK_THAT(read_error(j), Catch::Contains("plan.nodes[0].workdir: is too long"));
}

TEST_CASE("plan files are read with the file named in errors", "[core][plan-json]") {
  const auto dir = std::filesystem::temp_directory_path() / ("slipway-plan-json-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "plan.json").string();
  std::ofstream(good) << sample_json().dump();
  CHECK(plan_to_json(read_plan_file(good)) == sample_json());

  const std::string bad = (dir / "bad.json").string();
  std::ofstream(bad) << "{ not json";
  CHECK_THROWS_WITH(read_plan_file(bad), Catch::StartsWith(bad + ": invalid JSON"));
  CHECK_THROWS_WITH(read_plan_file((dir / "none.json").string()), Catch::Contains("cannot open plan file"));
  std::ofstream(bad) << "{}";
  CHECK_THROWS_WITH(read_plan_file(bad), Catch::Contains("plan.version: missing"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("tasks written as runs read back as the same tasks", "[core][plan-json]") {
  const Program p = parse_ok(R"(
[program]
name = "runs"
[node.learner]
command = "learner"
framework = "torch"
replicas = 3
[node.actor]
command = "actor"
replicas = 1000
ports = ["obs"]
)");
  const Plan plan = plan_ok(p, hosts(3, 400));
  const json runs = plan_to_json(plan, PlanTasks::runs);
  REQUIRE(runs.contains("task_runs"));
  CHECK_FALSE(runs.contains("tasks"));
  // The learner's replica 0 holds torch_master, so it stands alone; the
  // actors make one run per host.
  CHECK(runs["task_runs"].size() <= 6);
  std::uint64_t counted = 0;
  for (const json& run : runs["task_runs"]) counted += run["count"].get<std::uint64_t>();
  CHECK(counted == plan.tasks.size());
  const Plan back = plan_from_json(runs);
  CHECK(back.tasks == plan.tasks);
  CHECK(plan_to_json(back, PlanTasks::runs) == runs);
  CHECK(plan_to_json(back) == plan_to_json(plan));
}

TEST_CASE("task runs are bounded and checked like tasks", "[core][plan-json]") {
  json j = plan_to_json(sample_plan(), PlanTasks::runs);
  SECTION("not both forms") {
    j["tasks"] = json::array();
    CHECK_THAT(read_error(j), Catch::Contains("one of the two"));
  }
  SECTION("a count of zero") {
    j["task_runs"][0]["count"] = 0;
    CHECK_THAT(read_error(j), Catch::Contains("plan.task_runs[0].count: must be at least 1"));
  }
  SECTION("a count past the node's replicas") {
    j["task_runs"][0]["count"] = 5;
    CHECK_THAT(read_error(j), Catch::Contains("runs past its node's replicas"));
  }
  SECTION("a count past the task limit") {
    j["task_runs"][0]["count"] = 2000000;
    CHECK_THAT(read_error(j), Catch::Contains("count"));
  }
  SECTION("ids follow the runs") {
    j["task_runs"][1]["id"] = 7;
    CHECK_THAT(read_error(j), Catch::Contains("must be the task's index"));
  }
}
