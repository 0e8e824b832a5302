// `slipway top`'s model: the status document read into rows, and the rates
// that take two documents (CPU%, replay inserts/s and samples/s).
#include <catch2/catch.hpp>

#include "top_fixture.hpp"
#include "top_model.hpp"

using namespace slipway::cli::top;
using slipway::cli::top::test::fixture;
using slipway::cli::top::test::second_document;

TEST_CASE("top_model_reads_every_field_of_the_status_document") {
  const Status s = parse_status(fixture("status_first.json").dump());
  CHECK(s.program == "impala");
  CHECK(s.run == "/runs/impala.20261128-120000");
  CHECK(s.resume == 1);
  CHECK(s.state == "running");
  CHECK(s.metrics == std::optional<std::string>("http://127.0.0.1:43211/"));
  CHECK(s.endpoint == "node1:40000");
  CHECK(s.members == 7);
  REQUIRE(s.nodes.size() == 3);
  CHECK(s.nodes[0].name == "replay");
  CHECK(s.nodes[0].daemon);
  CHECK_FALSE(s.nodes[0].epoch);
  const NodeRow& learner = s.nodes[1];
  CHECK(learner.order == 1);
  CHECK(learner.world);
  CHECK(learner.epoch == std::optional<std::int64_t>(3));
  CHECK(learner.restarts == 4);
  REQUIRE(learner.last_exit);
  CHECK(learner.last_exit->replica == 1);
  CHECK(learner.last_exit->attempt == 2);
  CHECK(learner.last_exit->status == "signal 9 (SIGKILL)");
  REQUIRE(learner.tasks.size() == 2);
  CHECK(learner.tasks[1].host == "node3");
  CHECK(learner.tasks[1].pid == std::optional<std::int64_t>(301));
  CHECK(learner.tasks[1].rss_bytes == std::optional<std::int64_t>(4294967296LL));
  const NodeRow& actor = s.nodes[2];
  CHECK(actor.elastic);
  CHECK(actor.live == 3);
  CHECK(actor.min == 2);
  CHECK(actor.max == 8);
  // done counts succeeded and stopped tasks.
  CHECK(actor.counts.running == 2);
  CHECK(actor.counts.pending == 1);
  CHECK(actor.counts.backoff == 1);
  CHECK(actor.counts.failed == 1);
  CHECK(actor.counts.done == 2);
  CHECK(actor.counts.idle == 1);
  CHECK_FALSE(actor.tasks[2].cpu_seconds);
  CHECK_FALSE(actor.tasks[2].pid);
  REQUIRE(s.replay.size() == 1);
  CHECK(s.replay[0].task == "replay.0");
  CHECK(s.replay[0].table == "experience");
  CHECK(s.replay[0].max_size == 1000000);
  CHECK(s.replay[0].parked_inserts == 3);
  CHECK(s.replay[0].limiter_blocked_seconds == Approx(1.5));
  REQUIRE(s.events.size() == 4);
  CHECK(s.events[0].kind == "program_start");
  CHECK(s.events[0].node.empty());
  CHECK(s.events[1].replica == std::optional<std::int64_t>(1));
  CHECK_FALSE(s.events[2].replica);
}

TEST_CASE("top_model_names_what_is_wrong_in_a_document") {
  CHECK_THROWS_WITH(parse_status("{not json"), "status document: not valid JSON at byte 1: a member name was expected");
  CHECK_THROWS_WITH(parse_status("[1]"), "status document: document: not an object");
  CHECK_THROWS_WITH(parse_status(R"({"schema": 2})"), Catch::Contains("schema 2, this slipway reads schema 1"));
  auto doc = fixture("status_first.json");
  doc["nodes"][1]["tasks"][0]["rss_bytes"] = "big";
  CHECK_THROWS_WITH(parse_status(doc.dump()), "status document: nodes[1].tasks[0].rss_bytes: not a number");
  doc = fixture("status_first.json");
  doc["nodes"][2]["states"]["running"] = -1;
  CHECK_THROWS_WITH(parse_status(doc.dump()), "status document: nodes[2].states.running: not a count");
  // A real too large for an int64 (found by fuzz:cli:fuzz_top_status:
  // the cast was undefined).
  doc = fixture("status_first.json");
  doc["nodes"][1]["tasks"][0]["rss_bytes"] = 1.76e88;
  CHECK_THROWS_WITH(parse_status(doc.dump()), "status document: nodes[1].tasks[0].rss_bytes: out of range");
  doc = fixture("status_first.json");
  doc["nodes"][1]["tasks"][0]["rss_bytes"] = 4096.0;
  CHECK(parse_status(doc.dump()).nodes[1].tasks[0].rss_bytes == 4096);
  doc = fixture("status_first.json");
  doc["replay"][0]["tables"] = 3;
  CHECK_THROWS_WITH(parse_status(doc.dump()), "status document: replay[0].tables: not an array");
}

TEST_CASE("top_model_shows_no_usage_for_a_node_none_of_whose_tasks_reported_any") {
  auto doc = fixture("status_first.json");
  for (auto& task : doc["nodes"][2]["tasks"]) task["cpu_seconds"] = nullptr, task["rss_bytes"] = nullptr;
  doc["nodes"][2]["cpu_seconds"] = 0;
  doc["nodes"][2]["rss_bytes"] = 0;
  const Status s = parse_status(doc.dump());
  CHECK_FALSE(s.nodes[2].cpu_seconds);
  CHECK_FALSE(s.nodes[2].rss_bytes);
  CHECK(s.nodes[1].rss_bytes == std::optional<std::int64_t>(8589934592LL));
}

TEST_CASE("top_model_reads_missing_optional_fields_as_unknown") {
  const Status s = parse_status(R"({"schema": 1, "program": "p", "nodes": [{"name": "a"}]})");
  REQUIRE(s.nodes.size() == 1);
  CHECK(s.nodes[0].tasks.empty());
  CHECK_FALSE(s.nodes[0].cpu_seconds);
  CHECK_FALSE(s.metrics);
  CHECK(s.replay.empty());
}

TEST_CASE("top_model_computes_cpu_and_replay_rates_from_two_documents") {
  Model model;
  CHECK(model.update(fixture("status_first.json").dump()));
  // One document: no rate yet.
  CHECK_FALSE(model.status().nodes[1].cpu_percent);
  CHECK_FALSE(model.status().replay[0].inserts_per_second);
  CHECK(model.update(second_document().dump()));
  const Status& s = model.status();
  REQUIRE(s.nodes[0].tasks[0].cpu_percent);
  CHECK(*s.nodes[0].tasks[0].cpu_percent == Approx(50.0));
  CHECK(*s.nodes[1].tasks[0].cpu_percent == Approx(100.0));
  CHECK(*s.nodes[1].cpu_percent == Approx(200.0));
  // actor.0 by the documents' times; actor.1 unchanged within the window:
  // not known yet, and not counted in its node.
  CHECK(*s.nodes[2].tasks[0].cpu_percent == Approx(50.0));
  CHECK_FALSE(s.nodes[2].tasks[1].cpu_percent);
  CHECK(*s.nodes[2].cpu_percent == Approx(50.0));
  CHECK(*s.replay[0].inserts_per_second == Approx(1000.0));
  CHECK(*s.replay[0].samples_per_second == Approx(250.0));
}

TEST_CASE("top_model_skips_a_document_it_already_has") {
  Model model;
  const std::string text = fixture("status_first.json").dump();
  CHECK(model.update(text));
  CHECK_FALSE(model.update(text));
  // A broken document keeps the last good one.
  CHECK_THROWS(model.update("{"));
  CHECK(model.status().program == "impala");
}

TEST_CASE("top_model_starts_a_restarted_task_s_cpu_over") {
  Model model;
  model.update(fixture("status_first.json").dump());
  auto doc = second_document();
  model.update(doc.dump());
  REQUIRE(model.status().nodes[1].tasks[0].cpu_percent);
  // learner.0 restarted: a new attempt whose counter starts low.
  doc["unix_ms"] = doc["unix_ms"].get<std::int64_t>() + 2000;
  auto& task = doc["nodes"][1]["tasks"][0];
  task["attempt"] = 4;
  task["cpu_seconds"] = 1.0;
  task["usage_unix_ms"] = task["usage_unix_ms"].get<std::int64_t>() + 2000;
  model.update(doc.dump());
  CHECK_FALSE(model.status().nodes[1].tasks[0].cpu_percent);
  CHECK(*model.status().nodes[1].cpu_percent == Approx(100.0));  // learner.1's rate alone
}

TEST_CASE("top_model_rate_meter_keeps_a_window_and_starts_over_when_a_counter_drops") {
  RateMeter exact(5000);
  exact.add(0, 0, true);
  CHECK_FALSE(exact.per_second());
  exact.add(2000, 4, true);
  CHECK(*exact.per_second() == Approx(2.0));
  exact.add(2000, 9, true);  // not newer: ignored
  CHECK(*exact.per_second() == Approx(2.0));
  exact.add(4000, 8, true);
  exact.add(6000, 20, true);
  exact.add(8000, 32, true);
  // The window keeps 2000..8000 (the sample before the last 5 s and after).
  CHECK(*exact.per_second() == Approx((32.0 - 4.0) / 6.0));
  exact.add(10000, 1, true);
  CHECK_FALSE(exact.per_second());

  RateMeter seen(10000);
  seen.add(0, 5, false);
  seen.add(1000, 5, false);  // unchanged, within the window: not a sample
  CHECK_FALSE(seen.per_second());
  seen.add(2000, 7, false);
  CHECK(*seen.per_second() == Approx(1.0));
  seen.add(13000, 7, false);  // unchanged for a window: idle since
  CHECK(*seen.per_second() == Approx(0.0));
}
