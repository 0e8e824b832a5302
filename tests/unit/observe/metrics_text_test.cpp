// Prometheus text and the status document's JSON.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "slipway/observe/metrics_text.hpp"
#include "slipway/observe/program_status.hpp"

using namespace slipway::observe;

namespace {

ProgramStatus sample_status() {
  ProgramStatus s;
  s.program = "impala";
  s.run = "/runs/impala-1";
  s.unix_ms = 2000;
  s.started_unix_ms = 1000;
  s.rendezvous = {"h:1", 3, 120, 4};
  NodeStatus learner;
  learner.name = "learner";
  learner.type = "exec";
  learner.handles = {"replay"};
  learner.replicas = 2;
  learner.min = learner.max = 2;
  learner.world = true;
  learner.epoch = 3;
  for (std::uint32_t r = 0; r < 2; ++r) {
    TaskStatus t;
    t.replica = r;
    t.state = r == 0 ? "running" : "backoff";
    t.host = "n" + std::to_string(r);
    t.attempt = t.restarts = 2;
    t.epoch = 3;
    t.cpu_seconds = 1.5;
    t.rss_bytes = 1000;
    if (r == 1) t.last_exit = LastExit{1, 2, "exit 1", 1500};
    learner.tasks.push_back(t);
  }
  finish_node(learner);
  s.nodes.push_back(learner);
  NodeStatus odd;
  odd.name = "we\"ird\\node";
  odd.type = "exec";
  odd.replicas = odd.min = odd.max = 1;
  odd.tasks.push_back(TaskStatus{});
  finish_node(odd);
  s.nodes.push_back(odd);
  ReplayStatus replay;
  replay.task = "replay.0";
  replay.tables.push_back({"experience", 10, 100, 50, 40, 1, 2, 0.5});
  s.replay.push_back(replay);
  return s;
}

}  // namespace

TEST_CASE("a node sums its tasks") {
  const auto s = sample_status();
  const NodeStatus& n = s.nodes[0];
  CHECK(n.restarts == 4);
  CHECK(n.states.at("running") == 1);
  CHECK(n.states.at("backoff") == 1);
  CHECK(n.states.at("idle") == 0);
  CHECK(n.cpu_seconds == 3.0);
  CHECK(n.rss_bytes == 2000);
  REQUIRE(n.last_exit);
  CHECK(n.last_exit->status == "exit 1");
}

TEST_CASE("metrics follow Prometheus's text format and naming rules") {
  const std::string text = render_metrics(sample_status(), "0.1.0");
  std::istringstream in(text);
  std::string line;
  std::set<std::string> typed;
  const std::regex sample(R"re(^([a-z_]+)\{([^}]*)\} (-?[0-9.e+-]+)$)re");
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream words(line.substr(7));
      std::string name, type;
      words >> name >> type;
      CHECK(name.rfind("slipway_", 0) == 0);
      // _total only on counters, and every counter ends so.
      CHECK((type == "counter") == (name.size() > 6 && name.substr(name.size() - 6) == "_total"));
      typed.insert(name);
      continue;
    }
    if (line.rfind("# HELP ", 0) == 0) continue;
    std::smatch m;
    INFO(line);
    REQUIRE(std::regex_match(line, m, sample));
    CHECK(typed.count(m[1]) == 1);  // its family's TYPE came first
  }
  CHECK(text.find("slipway_task_up{program=\"impala\",node=\"learner\",replica=\"0\"} 1\n") != std::string::npos);
  CHECK(text.find("slipway_task_up{program=\"impala\",node=\"learner\",replica=\"1\"} 0\n") != std::string::npos);
  CHECK(text.find("slipway_task_restarts_total{program=\"impala\",node=\"learner\",replica=\"1\"} 2\n") !=
        std::string::npos);
  CHECK(text.find("slipway_world_epoch{program=\"impala\",node=\"learner\"} 3\n") != std::string::npos);
  CHECK(text.find("slipway_node_replicas{program=\"impala\",node=\"learner\",state=\"backoff\"} 1\n") !=
        std::string::npos);
  CHECK(text.find("slipway_rendezvous_requests_total{program=\"impala\"} 120\n") != std::string::npos);
  CHECK(text.find("slipway_replay_items_inserted_total{program=\"impala\",task=\"replay.0\",table=\"experience\"} 50\n") !=
        std::string::npos);
  CHECK(text.find("kind=\"sample\"} 2\n") != std::string::npos);
  CHECK(text.find("node=\"we\\\"ird\\\\node\"") != std::string::npos);  // escaped
  CHECK(text.find("slipway_build_info{program=\"impala\",version=\"0.1.0\"} 1") != std::string::npos);
}

TEST_CASE("the status document reads back as written, and another schema is refused") {
  const auto s = sample_status();
  const auto j = to_json(s);
  CHECK(j["schema"] == kStatusSchema);
  CHECK(j["nodes"][0]["tasks"][0]["pid"].is_null());
  CHECK(j["metrics"].is_null());
  const auto back = status_from_json(j);
  REQUIRE(back.nodes.size() == 2);
  CHECK(back.nodes[0].tasks[1].last_exit->status == "exit 1");
  CHECK(back.nodes[0].epoch == 3);
  CHECK(back.replay[0].tables[0].parked_samples == 2);
  CHECK(to_json(back) == j);
  auto other = j;
  other["schema"] = 2;
  CHECK_THROWS_AS(status_from_json(other), std::runtime_error);
  CHECK_THROWS_AS(status_from_json(nlohmann::json::parse("{\"schema\":1}")), std::runtime_error);
}

TEST_CASE("usage and replay keys are parsed, and malformed ones are not") {
  auto usage = parse_usage(R"({"cpu_seconds":1.25,"rss_bytes":4096,"processes":2,"unix_ms":5})");
  REQUIRE(usage);
  CHECK(usage->cpu_seconds == 1.25);
  CHECK(usage->rss_bytes == 4096);
  CHECK_FALSE(parse_usage("{}"));
  CHECK_FALSE(parse_usage("nonsense"));
  CHECK_FALSE(parse_usage(std::string(5000, ' ')));
  auto replay = parse_replay_stats("replay.0", R"({"unix_ms":1,"last_checkpoint_unix_ms":null,"tables":[{"name":"t","size":3}]})");
  REQUIRE(replay);
  CHECK(replay->tables[0].size == 3);
  CHECK_FALSE(parse_replay_stats("replay.0", R"({"tables":5})"));
}
