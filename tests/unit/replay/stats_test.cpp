// A replay shard's stats (slipway/replay/stats.hpp): each table's totals
// (inserted, sampled or leased; kept across reset, not counted on restore),
// the engine's parked requests and the time they waited on an injected
// clock (woken, timed out, moved to another table, drained, still parked),
// and the key's JSON.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine_fixture.hpp"
#include "slipway/replay/checkpoint.hpp"
#include "slipway/replay/stats.hpp"

using namespace replay_test;

namespace {

const TableStats& of(const std::vector<TableStats>& stats, const std::string& name) {
  for (const auto& table : stats) {
    if (table.name == name) return table;
  }
  FAIL("no table " << name);
  throw;
}

void insert(Engine& engine, const std::string& table, Time now, int count = 1) {
  for (int i = 0; i < count; ++i) {
    Answer<InsertReply> answer;
    engine.insert(caller(), one_item("x", table), now, answer.done());
    REQUIRE(answer.reply);
    REQUIRE(answer.reply->status == Status::ok);
  }
}

}  // namespace

TEST_CASE("a table's totals count inserts and samples, and no reset or eviction takes them back") {
  TableConfig config = table("t");
  config.max_size = 2;
  Engine engine({{config}, {}}, 0);
  insert(engine, "t", t0(), 3);  // the third evicts one
  Answer<SampleReply> sampled;
  engine.sample(caller(), {"t", 4, 1, 0}, t0(), sampled.done());
  REQUIRE(sampled.reply->items.size() == 4);
  auto stats = engine.stats(t0());
  CHECK(of(stats, "t").size == 2);
  CHECK(of(stats, "t").max_size == 2);
  CHECK(of(stats, "t").inserted_total == 3);
  CHECK(of(stats, "t").sampled_total == 4);
  REQUIRE(engine.reset(caller(), "t", t0()).status == Status::ok);
  stats = engine.stats(t0());
  CHECK(of(stats, "t").size == 0);
  CHECK(of(stats, "t").inserted_total == 3);
  CHECK(of(stats, "t").sampled_total == 4);
}

TEST_CASE("a work table's leases count as samples; a restored checkpoint counts as neither") {
  Engine engine({{table("jobs", TableKind::work), table("t")}, {}}, 0);
  insert(engine, "jobs", t0(), 2);
  insert(engine, "t", t0(), 5);
  Answer<LeaseReply> leased;
  engine.lease(caller(), {"jobs", 2, 0}, t0(), leased.done());
  REQUIRE(leased.reply->items.size() == 2);
  CHECK(of(engine.stats(t0()), "jobs").sampled_total == 2);

  Engine restored({{table("jobs", TableKind::work), table("t")}, {}}, 0);
  restored.restore(engine.snapshot());
  const auto stats = restored.stats(t0());
  CHECK(of(stats, "t").size == 5);
  CHECK(of(stats, "t").inserted_total == 0);
  CHECK(of(stats, "jobs").sampled_total == 0);
}

TEST_CASE("parked samples count, and the time they wait on the limiter adds up") {
  TableConfig config = table("t");
  config.rate_limiter = RateLimiterConfig::min_size(2);
  Engine engine({{config}, {}}, 0);
  Answer<SampleReply> first, second;
  engine.sample(caller(), {"t", 1, 1, 60000}, t0(), first.done());
  engine.sample(caller(), {"t", 1, 1, 60000}, t0() + 500ms, second.done());
  auto stats = engine.stats(t0() + 1s);
  CHECK(of(stats, "t").parked_samples == 2);
  CHECK(of(stats, "t").parked_inserts == 0);
  // Still parked: counted up to now (1 s + 0.5 s).
  CHECK(of(stats, "t").limiter_blocked_seconds_total == Approx(1.5));
  insert(engine, "t", t0() + 2s, 2);  // both go at 2 s: 2 s + 1.5 s
  REQUIRE(first.reply);
  REQUIRE(second.reply);
  stats = engine.stats(t0() + 10s);
  CHECK(of(stats, "t").parked_samples == 0);
  CHECK(of(stats, "t").limiter_blocked_seconds_total == Approx(3.5));
}

TEST_CASE("a parked request that times out counts its wait up to its deadline, drain up to now") {
  Engine engine({{table("q", TableKind::queue)}, {}}, 0);
  Answer<SampleReply> timed_out, drained;
  engine.sample(caller(), {"q", 1, 1, 1000}, t0(), timed_out.done());
  engine.sample(caller(), {"q", 1, 1, 60000}, t0(), drained.done());
  engine.tick(t0() + 1s);
  REQUIRE(timed_out.reply);
  CHECK(timed_out.reply->status == Status::not_ready);
  CHECK(of(engine.stats(t0() + 1s), "q").limiter_blocked_seconds_total == Approx(2.0));
  engine.drain(t0() + 3s);
  REQUIRE(drained.reply);
  const auto stats = engine.stats(t0() + 100s);  // nothing parked any more
  CHECK(of(stats, "q").parked_samples == 0);
  CHECK(of(stats, "q").limiter_blocked_seconds_total == Approx(4.0));
}

TEST_CASE("a parked insert counts on the table it waits on, and moves its count with it") {
  Engine engine({{queue_of_one("a"), queue_of_one("b")}, {}}, 0);
  insert(engine, "a", t0());
  insert(engine, "b", t0());
  InsertRequest both;
  both.wait_ms = 60000;
  both.items.push_back({bytes_of("ab"), {{"a", 1.0}, {"b", 1.0}}});
  Answer<InsertReply> parked;
  engine.insert(caller(), both, t0(), parked.done());
  REQUIRE_FALSE(parked.reply);
  // It waits on "a", the first table that refuses it.
  auto stats = engine.stats(t0() + 1s);
  CHECK(of(stats, "a").parked_inserts == 1);
  CHECK(of(stats, "a").limiter_blocked_seconds_total == Approx(1.0));
  CHECK(of(stats, "b").limiter_blocked_seconds_total == 0.0);
  // "a" lets it by at 1 s; it moves on to "b", which holds it until 3 s.
  Answer<SampleReply> popped_a, popped_b;
  engine.sample(caller(), {"a", 1, 1, 0}, t0() + 1s, popped_a.done());
  REQUIRE(popped_a.reply->items.size() == 1);
  stats = engine.stats(t0() + 2s);
  CHECK(of(stats, "a").parked_inserts == 0);
  CHECK(of(stats, "b").parked_inserts == 1);
  CHECK(of(stats, "a").limiter_blocked_seconds_total == Approx(1.0));  // kept by "a"
  CHECK(of(stats, "b").limiter_blocked_seconds_total == Approx(1.0));  // since it came
  engine.sample(caller(), {"b", 1, 1, 0}, t0() + 3s, popped_b.done());
  REQUIRE(parked.reply);
  CHECK(parked.reply->status == Status::ok);
  stats = engine.stats(t0() + 5s);
  CHECK(of(stats, "a").parked_inserts + of(stats, "b").parked_inserts == 0);
  CHECK(of(stats, "a").limiter_blocked_seconds_total == Approx(1.0));
  CHECK(of(stats, "b").limiter_blocked_seconds_total == Approx(2.0));
  CHECK(of(stats, "a").inserted_total == 2);
  CHECK(of(stats, "b").inserted_total == 2);
}

TEST_CASE("stats_json is the replay/stats key's document") {
  ShardStats stats;
  stats.tables.push_back({"experience", 10, 1000, 12, 30, 1, 2, 1.5});
  auto document = nlohmann::json::parse(stats_json(stats, 1764331200000));
  CHECK(document == nlohmann::json::parse(R"({"unix_ms": 1764331200000, "last_checkpoint_unix_ms": null,
    "tables": [{"name": "experience", "size": 10, "max_size": 1000, "inserted_total": 12, "sampled_total": 30,
                "parked_inserts": 1, "parked_samples": 2, "limiter_blocked_seconds_total": 1.5}]})"));
  stats.last_checkpoint_unix_ms = 1764331100000;
  stats.tables.clear();
  document = nlohmann::json::parse(stats_json(stats, 1));
  CHECK(document["last_checkpoint_unix_ms"] == 1764331100000);
  CHECK(document["tables"] == nlohmann::json::array());
  CHECK(stats_key("replay", 3) == "replay/stats/replay.3");
}
