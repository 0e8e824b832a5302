// Replay nodes in the topology (type = "replay"): their tables and
// checkpoint as parsed (kind defaults filled in), the command and daemon
// they get, SLIPWAY_REPLAY_CONFIG's JSON and its round trip through the
// plan JSON. Every validation error is in broken/replay_*.toml.
#include "core_test_support.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/core/plan_json.hpp"
#include "slipway/core/replay_config.hpp"

using namespace slipway::core;
using nlohmann::json;
using slipway::core::test::hosts;
using slipway::core::test::parse_errors;
using slipway::core::test::parse_ok;
using slipway::core::test::plan_ok;

namespace {

const char* kIssueTopology = R"(
[program]
name = "rl"
[node.replay]
type = "replay"
replicas = 2
max_retries = 3
mem = "1G"
[node.replay.tables.experience]
sampler = { prioritized = 0.6 }
remover = "fifo"
max_size = 1_000_000
max_times_sampled = 0
rate_limiter = { samples_per_insert = 8.0, min_size_to_sample = 1000, error_buffer = 800 }
[node.replay.tables.tasks]
kind = "queue"
max_size = 10_000
[node.replay.tables.jobs]
kind = "work"
lease = "90s"
[node.replay.tables.undo]
kind = "stack"
[node.replay.tables.plain]
[node.replay.checkpoint]
every = "15m"
path = "ckpt/replay"
[node.learner]
command = "python3 learner.py"
handles = ["replay"]
)";

const ReplayTable& table(const NodeSpec& node, std::string_view name) {
  for (const ReplayTable& t : node.replay.tables) {
    if (t.name.value == name) return t;
  }
  FAIL("no table " << name);
  return node.replay.tables.front();
}

}  // namespace

TEST_CASE("a replay node's tables keep the file's order and fill each kind's defaults", "[core][replay]") {
  const Program p = parse_ok(kIssueTopology, "/topo/rl.toml");
  const NodeSpec& replay = p.nodes[0];
  CHECK(replay.type.value == NodeType::replay);
  REQUIRE(replay.replay.tables.size() == 5);
  CHECK(replay.replay.tables[0].name.value == "experience");
  CHECK(replay.replay.tables[4].name.value == "plain");

  const ReplayTable& experience = table(replay, "experience");
  CHECK(experience.kind.value == ReplayTableKind::table);
  CHECK(experience.sampler.value == ReplaySelector{ReplaySelectorType::prioritized, 0.6});
  CHECK(experience.remover.value == ReplaySelector{ReplaySelectorType::fifo, 0});
  CHECK(experience.max_size.value == 1000000);
  CHECK(experience.rate_limiter.value.type == ReplayRateLimiterType::ratio);
  CHECK(experience.rate_limiter.value.samples_per_insert == 8.0);
  CHECK(experience.rate_limiter.value.min_size_to_sample == 1000);
  CHECK(experience.rate_limiter.value.error_buffer == 800.0);
  CHECK(experience.sampler.where.line == 10);

  const ReplayTable& tasks = table(replay, "tasks");
  CHECK(tasks.kind.value == ReplayTableKind::queue);
  CHECK(tasks.sampler.value.type == ReplaySelectorType::fifo);
  CHECK(tasks.remover.value.type == ReplaySelectorType::fifo);
  CHECK(tasks.max_times_sampled.value == 1);
  CHECK(tasks.rate_limiter.value.type == ReplayRateLimiterType::queue);
  CHECK(tasks.max_size.value == 10000);
  CHECK_FALSE(tasks.sampler.where.known());

  const ReplayTable& jobs = table(replay, "jobs");
  CHECK(jobs.kind.value == ReplayTableKind::work);
  CHECK(jobs.lease_ms.value == 90000);
  CHECK(jobs.rate_limiter.value.type == ReplayRateLimiterType::queue);

  const ReplayTable& undo = table(replay, "undo");
  CHECK(undo.sampler.value.type == ReplaySelectorType::lifo);
  CHECK(undo.remover.value.type == ReplaySelectorType::lifo);
  CHECK(undo.rate_limiter.value.type == ReplayRateLimiterType::stack);

  const ReplayTable& plain = table(replay, "plain");
  CHECK(plain.sampler.value.type == ReplaySelectorType::uniform);
  CHECK(plain.remover.value.type == ReplaySelectorType::fifo);
  CHECK(plain.max_size.value == 1000000);
  CHECK(plain.max_times_sampled.value == 0);
  CHECK(plain.rate_limiter.value.type == ReplayRateLimiterType::min_size);
  CHECK(plain.rate_limiter.value.min_size == 1);
  CHECK(plain.lease_ms.value == 60000);

  REQUIRE(replay.replay.checkpoint.value.has_value());
  CHECK(replay.replay.checkpoint.value->every_ms.value == std::optional<std::uint64_t>(900000));
  CHECK(replay.replay.checkpoint.value->path.value == std::optional<std::string>("ckpt/replay"));
}

TEST_CASE("a replay node runs slipway-replay as a daemon unless told otherwise", "[core][replay]") {
  Program p = parse_ok(kIssueTopology);
  CHECK(p.nodes[0].command.value == std::vector<std::string>{"slipway-replay"});
  CHECK_FALSE(p.nodes[0].command.where.known());
  CHECK(p.nodes[0].daemon.value);
  CHECK_FALSE(p.nodes[1].daemon.value);
  set_replay_program(p, "/opt/slipway/bin/slipway-replay");
  CHECK(p.nodes[0].command.value == std::vector<std::string>{"/opt/slipway/bin/slipway-replay"});
  CHECK(p.nodes[1].command.value == std::vector<std::string>{"python3", "learner.py"});

  const Program kept = parse_ok(R"(
[program]
name = "d"
[node.r]
type = "replay"
daemon = false
[node.r.tables.t]
)");
  CHECK_FALSE(kept.nodes[0].daemon.value);
}

TEST_CASE("the other rate limiter forms and durations", "[core][replay]") {
  const Program p = parse_ok(R"(
[program]
name = "forms"
[node.a]
command = "a"
[node.r]
type = "replay"
[node.r.tables.min]
rate_limiter = { min_size = 50 }
sampler = "max_heap"
remover = { prioritized = 1 }
[node.r.tables.ratio]
rate_limiter = { samples_per_insert = 1, error_buffer = 1 }
sampler = "min_heap"
remover = "lifo"
[node.r.tables.w1]
kind = "work"
lease = 2.5
[node.r.tables.w2]
kind = "work"
lease = "500ms"
[node.r.tables.w3]
kind = "work"
lease = "1.5h"
[node.r.checkpoint]
every = "1d"
)");
  const NodeSpec& r = p.nodes[1];
  CHECK(table(r, "min").rate_limiter.value.type == ReplayRateLimiterType::min_size);
  CHECK(table(r, "min").rate_limiter.value.min_size == 50);
  CHECK(table(r, "min").sampler.value.type == ReplaySelectorType::max_heap);
  CHECK(table(r, "min").remover.value == ReplaySelector{ReplaySelectorType::prioritized, 1.0});
  CHECK(table(r, "ratio").rate_limiter.value.min_size_to_sample == 1);  // left out: 1
  CHECK(table(r, "ratio").sampler.value.type == ReplaySelectorType::min_heap);
  CHECK(table(r, "w1").lease_ms.value == 2500);
  CHECK(table(r, "w2").lease_ms.value == 500);
  CHECK(table(r, "w3").lease_ms.value == 5400000);
  CHECK(r.replay.checkpoint.value->every_ms.value == std::optional<std::uint64_t>(86400000));
  CHECK_FALSE(r.replay.checkpoint.value->path.value.has_value());
}

TEST_CASE("SLIPWAY_REPLAY_CONFIG writes every field of every table, defaults filled in", "[core][replay]") {
  const Program p = parse_ok(kIssueTopology, "/topo/rl.toml");
  const json j = replay_config_json(p.nodes[0]);
  const json expected = json::parse(R"({
    "tables": [
      {"name": "experience", "kind": "table",
       "sampler": {"type": "prioritized", "exponent": 0.6}, "remover": {"type": "fifo"},
       "max_size": 1000000, "max_times_sampled": 0,
       "rate_limiter": {"type": "ratio", "samples_per_insert": 8.0, "min_size_to_sample": 1000, "error_buffer": 800.0},
       "lease_ms": 60000},
      {"name": "tasks", "kind": "queue", "sampler": {"type": "fifo"}, "remover": {"type": "fifo"},
       "max_size": 10000, "max_times_sampled": 1, "rate_limiter": {"type": "queue"}, "lease_ms": 60000},
      {"name": "jobs", "kind": "work", "sampler": {"type": "fifo"}, "remover": {"type": "fifo"},
       "max_size": 1000000, "max_times_sampled": 1, "rate_limiter": {"type": "queue"}, "lease_ms": 90000},
      {"name": "undo", "kind": "stack", "sampler": {"type": "lifo"}, "remover": {"type": "lifo"},
       "max_size": 1000000, "max_times_sampled": 1, "rate_limiter": {"type": "stack"}, "lease_ms": 60000},
      {"name": "plain", "kind": "table", "sampler": {"type": "uniform"}, "remover": {"type": "fifo"},
       "max_size": 1000000, "max_times_sampled": 0, "rate_limiter": {"type": "min_size", "min_size": 1},
       "lease_ms": 60000}
    ],
    "checkpoint": {"every_ms": 900000, "path": "/topo/ckpt/replay"}
  })");
  CHECK(j == expected);

  // The variable: the same JSON, for the replay node's tasks only.
  const Plan plan = plan_ok(p, hosts(1, 8));
  const auto addresses = test::resolve_all(plan);
  const EnvMap env = task_environment(plan, *plan.find_task("replay", 1), {}, addresses);
  REQUIRE(env.count(env::kReplayConfig) == 1);
  CHECK(json::parse(env.at(env::kReplayConfig)) == expected);
  CHECK(task_environment(plan, *plan.find_task("learner", 0), {}, addresses).count(env::kReplayConfig) == 0);
}

TEST_CASE("a replay checkpoint without keys, or with an absolute path, is written as given", "[core][replay]") {
  const Program p = parse_ok(R"(
[program]
name = "c"
[node.a]
command = "a"
[node.r1]
type = "replay"
[node.r1.tables.t]
[node.r1.checkpoint]
[node.r2]
type = "replay"
[node.r2.tables.t]
[node.r2.checkpoint]
path = "/scratch/ckpt"
[node.r3]
type = "replay"
[node.r3.tables.t]
)");
  CHECK(replay_config_json(p.nodes[1]).at("checkpoint") == json::object());
  CHECK(replay_config_json(p.nodes[2]).at("checkpoint") == json{{"path", "/scratch/ckpt"}});
  CHECK_FALSE(replay_config_json(p.nodes[3]).contains("checkpoint"));
}

TEST_CASE("the plan JSON carries a replay node's configuration both ways", "[core][replay][plan_json]") {
  const Program p = parse_ok(kIssueTopology, "/topo/rl.toml");
  const Plan plan = plan_ok(p, hosts(1, 8));
  const json j = plan_to_json(plan);
  CHECK(j["nodes"][0]["replay"] == replay_config_json(p.nodes[0]));
  CHECK_FALSE(j["nodes"][1].contains("replay"));
  const Plan back = plan_from_json(j);
  CHECK(back.program.nodes[0].type.value == NodeType::replay);
  CHECK(replay_config_json(back.program.nodes[0]) == replay_config_json(p.nodes[0]));
  CHECK(plan_to_json(back) == j);
}

TEST_CASE("reading a replay configuration back checks every field by path", "[core][replay][plan_json]") {
  const Program p = parse_ok(kIssueTopology, "/topo/rl.toml");
  const json good = plan_to_json(plan_ok(p, hosts(1, 8)));
  auto fails = [&](const std::function<void(json&)>& edit, const std::string& message) {
    json bad = good;
    edit(bad["nodes"][0]["replay"]);
    INFO(bad["nodes"][0]["replay"].dump());
    CHECK_THROWS_WITH(plan_from_json(bad), Catch::Contains("plan JSON: plan.nodes[0].replay" + message));
  };
  fails([](json& j) { j.erase("tables"); }, ".tables: missing");
  fails([](json& j) { j["tables"][0]["kind"] = "heap"; }, ".tables[0].kind: unknown value 'heap'");
  fails([](json& j) { j["tables"][0]["sampler"]["type"] = "random"; }, ".tables[0].sampler.type: unknown value");
  fails([](json& j) { j["tables"][0]["sampler"].erase("exponent"); }, ".tables[0].sampler.exponent: missing");
  fails([](json& j) { j["tables"][0]["sampler"]["exponent"] = 11; }, ".tables[0].sampler.exponent: must be a finite");
  fails([](json& j) { j["tables"][1]["max_size"] = 0; }, ".tables[1].max_size: must be at least 1");
  fails([](json& j) { j["tables"][1]["max_size"] = 2000000000; }, ".tables[1].max_size: must be at most 1000000000");
  fails([](json& j) { j["tables"][1]["max_size"] = -5; }, ".tables[1].max_size: must be a non-negative integer");
  fails([](json& j) { j["tables"][0]["rate_limiter"]["samples_per_insert"] = "8"; },
        ".tables[0].rate_limiter.samples_per_insert: must be a number");
  fails([](json& j) { j["tables"][0]["rate_limiter"]["type"] = "token_bucket"; }, ".tables[0].rate_limiter.type");
  fails([](json& j) { j["tables"][0]["lease_ms"] = "soon"; }, ".tables[0].lease_ms: must be a non-negative integer");
  fails([](json& j) { j["checkpoint"]["path"] = ""; }, ".checkpoint.path: must be 1 to 4095 bytes");
  fails([](json& j) { j["tables"] = json::array({json::object()}); }, ".tables[0].name: missing");
  fails([](json& j) { j = json::array(); }, ": must be an object");
  json no_replay = good;
  no_replay["nodes"][0].erase("replay");
  CHECK_THROWS_WITH(plan_from_json(no_replay), Catch::Contains("plan JSON: plan.nodes[0].replay: missing"));
}

TEST_CASE("replay's own keys are known, and refused in [defaults]", "[core][replay]") {
  for (const char* key : {"kind", "sampler", "remover", "max_size", "max_times_sampled", "rate_limiter", "lease"}) {
    const auto& keys = topology_keys("tables");
    CHECK(std::find(keys.begin(), keys.end(), key) != keys.end());
  }
  CHECK(topology_keys("checkpoint") == std::vector<std::string_view>{"every", "path"});
  const auto errors = parse_errors(R"([program]
name = "d"
[defaults]
checkpoint = { every = "1m" }
[node.a]
command = "a"
)");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "t.toml:4:1: key 'checkpoint' cannot be in [defaults]: it belongs to one node; set it in "
                     "that [node.NAME] table");
}

TEST_CASE("a replay node's configuration at its largest fits one variable", "[core][replay]") {
  std::string text = "[program]\nname = \"big\"\n[node.a]\ncommand = \"a\"\n[node.r]\ntype = \"replay\"\n";
  const std::string long_name(64, 'x');
  for (int i = 0; i < 64; ++i) {
    const std::string name = long_name.substr(0, 62) + std::to_string(10 + i);
    text += "[node.r.tables." + name + "]\nsampler = { prioritized = 0.123456789012345 }\n"
            "remover = { prioritized = 0.987654321098765 }\nmax_size = 999999999\nmax_times_sampled = 2147483647\n"
            "rate_limiter = { samples_per_insert = 0.123456789012345, min_size_to_sample = 999999999, "
            "error_buffer = 123456789012345 }\n";
  }
  text += "[node.r.checkpoint]\nevery = \"29d\"\npath = \"/" + std::string(4000, 'p') + "\"\n";
  const Program p = parse_ok(text);
  CHECK(replay_environment(p.nodes[1]).at(env::kReplayConfig).size() < 64 * 1024);
}

TEST_CASE("a duration too long to read is refused, not read as a huge number", "[core][replay]") {
  const auto errors = parse_errors(R"([program]
name = "d"
[node.a]
command = "a"
[node.r]
type = "replay"
[node.r.tables.w]
kind = "work"
lease = "1000000000000000000000000000000000000000s"
)");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].starts_with("t.toml:9:9: 'lease' in table 'w' of node 'r' is \"1000000000000000000000000000000"));
  CHECK(errors[0].find("not a duration") != std::string::npos);
}
