// The replay schema read once: what `slipway plan --json` shows of a replay
// node (its "replay" field, with every default filled in; `slipway
// validate` lists the same tables and kinds) is what a shard is configured
// with, for every key, and a key left out of SLIPWAY_REPLAY_CONFIG gives the
// shard the default that core shows for it.
#include <catch2/catch.hpp>

#include "slipway/core/plan.hpp"
#include "slipway/core/plan_json.hpp"
#include "slipway/core/topology.hpp"
#include "slipway/replay/config.hpp"

using namespace slipway;
using nlohmann::json;

namespace {

// Every kind with only its kind given (all defaults), and a table with
// every key given.
const char* kTopology = R"(
[program]
name = "schema"
[node.replay]
type = "replay"
[node.replay.tables.plain]
[node.replay.tables.fifo]
kind = "queue"
[node.replay.tables.lifo]
kind = "stack"
[node.replay.tables.jobs]
kind = "work"
[node.replay.tables.given]
sampler = { prioritized = 0.6 }
remover = "min_heap"
max_size = 5000
max_times_sampled = 8
rate_limiter = { samples_per_insert = 4.0, min_size_to_sample = 100, error_buffer = 50 }
[node.replay.tables.floor]
rate_limiter = { min_size = 10 }
[node.replay.checkpoint]
every = "15m"
path = "ckpt/replay"
[node.learner]
command = "learner"
)";

// The replay node's "replay" field of `slipway plan --json`.
json shown_by_plan(const char* topology) {
  core::TopologyResult parsed = core::parse_topology(topology, "/topo/schema.toml");
  REQUIRE(parsed.ok());
  core::Allocation allocation;
  allocation.hosts.push_back(core::Host{"fn1", "10.0.0.1", 8, 0, 0, {}});
  core::PlanResult planned = core::make_plan(*parsed.program, allocation);
  REQUIRE(planned.ok());
  const json plan = core::plan_to_json(*planned.plan);
  for (const json& node : plan.at("nodes")) {
    if (node.at("name") == "replay") return node.at("replay");
  }
  FAIL("the plan has no node 'replay'");
  return {};
}

// The limiter a shown rate_limiter stands for (Reverb's constructors).
replay::RateLimiterConfig limiter_of(const json& shown, std::uint64_t max_size) {
  const std::string type = shown.at("type");
  if (type == "min_size") return replay::RateLimiterConfig::min_size(shown.at("min_size"));
  if (type == "ratio") {
    return replay::RateLimiterConfig::sample_to_insert_ratio(shown.at("samples_per_insert"),
                                                             shown.at("min_size_to_sample"), shown.at("error_buffer"));
  }
  const auto size = static_cast<std::int64_t>(max_size);
  if (type == "queue") return replay::RateLimiterConfig::queue(size);
  if (type == "stack") return replay::RateLimiterConfig::stack(size);
  FAIL("unknown rate limiter " << type);
  return {};
}

void check_selector(const replay::SelectorSpec& shard, const json& shown) {
  CHECK(std::string(to_string(shard.kind)) == shown.at("type").get<std::string>());
  if (shard.kind == replay::SelectorKind::prioritized) CHECK(shard.exponent == shown.at("exponent").get<double>());
}

// Every key of every shown table, and the checkpoint, against the shard's.
void check_shard_is(const replay::ServerConfig& shard, const json& shown) {
  REQUIRE(shard.engine.tables.size() == shown.at("tables").size());
  for (std::size_t i = 0; i < shard.engine.tables.size(); ++i) {
    const replay::TableConfig& t = shard.engine.tables[i];
    const json& s = shown.at("tables")[i];
    INFO("table " << s.at("name") << " shown as " << s.dump());
    CHECK(t.name == s.at("name").get<std::string>());
    CHECK(std::string(to_string(t.kind)) == s.at("kind").get<std::string>());
    check_selector(t.sampler, s.at("sampler"));
    check_selector(t.remover, s.at("remover"));
    CHECK(t.max_size == s.at("max_size").get<std::uint64_t>());
    CHECK(t.max_times_sampled == s.at("max_times_sampled").get<std::uint32_t>());
    CHECK(t.lease.count() == s.at("lease_ms").get<std::int64_t>());
    const replay::RateLimiterConfig want = limiter_of(s.at("rate_limiter"), s.at("max_size"));
    CHECK(t.rate_limiter.samples_per_insert == want.samples_per_insert);
    CHECK(t.rate_limiter.min_size_to_sample == want.min_size_to_sample);
    CHECK(t.rate_limiter.min_diff == want.min_diff);
    CHECK(t.rate_limiter.max_diff == want.max_diff);
  }
  REQUIRE(shard.checkpoint.has_value() == shown.contains("checkpoint"));
  if (shard.checkpoint) {
    const json& c = shown.at("checkpoint");
    CHECK(shard.checkpoint->every.count() == c.value("every_ms", 0));
    CHECK(shard.checkpoint->path == c.value("path", ""));
  }
}

}  // namespace

TEST_CASE("a shard is configured with what slipway plan shows, key for key", "[replay][schema]") {
  const json shown = shown_by_plan(kTopology);
  check_shard_is(replay::parse_config(shown.dump()), shown);
}

TEST_CASE("a key left out of SLIPWAY_REPLAY_CONFIG gives the shard the default slipway plan shows",
          "[replay][schema]") {
  const json shown = shown_by_plan(kTopology);
  const json& tables = shown.at("tables");
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const std::string name = tables[i].at("name");
    if (name == "given" || name == "floor") continue;  // these give their keys
    // Each table gives only its kind: everything else shown is a default.
    std::vector<std::vector<std::string>> keys;
    for (const auto& item : tables[i].items()) {
      if (item.key() != "name" && (item.key() != "kind" || item.value() == "table")) keys.push_back({item.key()});
      if (item.value().is_object()) {
        for (const auto& inner : item.value().items()) {
          if (inner.key() != "type") keys.push_back({item.key(), inner.key()});
        }
      }
    }
    for (const auto& key : keys) {
      json config = shown;
      json& table = config["tables"][i];
      if (key.size() == 1) {
        table.erase(key[0]);
      } else {
        table[key[0]].erase(key[1]);
      }
      INFO("table " << name << " without " << key[0] << (key.size() > 1 ? "." + key[1] : ""));
      check_shard_is(replay::parse_config(config.dump()), shown);
    }
  }
}

TEST_CASE("the shard refuses what slipway plan would refuse to read back, naming the key", "[replay][schema]") {
  const json shown = shown_by_plan(kTopology);
  json config = shown;
  config["tables"][0]["max_size"] = 2000000000;  // above core's 1,000,000,000
  CHECK_THROWS_WITH(replay::parse_config(config.dump()),
                    "SLIPWAY_REPLAY_CONFIG: tables[0].max_size: must be at most 1000000000");
  json plan_json_form = shown;
  plan_json_form["tables"][4]["rate_limiter"].erase("error_buffer");
  CHECK_THROWS_WITH(replay::parse_config(plan_json_form.dump()),
                    "SLIPWAY_REPLAY_CONFIG: tables[4].rate_limiter.error_buffer: missing");
}
