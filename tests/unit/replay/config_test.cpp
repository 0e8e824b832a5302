// SLIPWAY_REPLAY_CONFIG: the agreed JSON, kinds' defaults, and errors that
// name the key's path (tables[N].KEY) or the table (schema_test.cpp checks
// it against what `slipway plan` shows).
#include <catch2/catch.hpp>

#include "slipway/replay/config.hpp"

using namespace slipway::replay;

TEST_CASE("the agreed configuration parses") {
  const auto config = parse_config(R"({"tables":[
      {"name":"experience","kind":"table","sampler":{"type":"prioritized","exponent":0.6},
       "remover":{"type":"fifo"},"max_size":1000000,"max_times_sampled":0,
       "rate_limiter":{"type":"ratio","samples_per_insert":8.0,"min_size_to_sample":1000,"error_buffer":800},
       "lease_ms":60000},
      {"name":"tasks","kind":"queue","sampler":{"type":"fifo"},"remover":{"type":"fifo"},"max_size":10000,
       "max_times_sampled":1,"rate_limiter":{"type":"queue"},"lease_ms":60000},
      {"name":"jobs","kind":"work","max_size":50,"lease_ms":2500}],
     "checkpoint":{"every_ms":900000,"path":"ckpt/replay"},
     "limits":{"max_item_bytes":1048576}})");
  REQUIRE(config.engine.tables.size() == 3);
  const auto& experience = config.engine.tables[0];
  CHECK(experience.sampler.kind == SelectorKind::prioritized);
  CHECK(experience.sampler.exponent == 0.6);
  CHECK(experience.rate_limiter.min_diff == 8000.0 - 800.0);
  CHECK(experience.rate_limiter.max_diff == 8000.0 + 800.0);
  const auto& tasks = config.engine.tables[1];
  CHECK(tasks.kind == TableKind::queue);
  CHECK(tasks.rate_limiter.max_diff == 10000.0);
  CHECK(tasks.max_times_sampled == 1);
  const auto& jobs = config.engine.tables[2];  // defaults of a work table
  CHECK(jobs.sampler.kind == SelectorKind::fifo);
  CHECK(jobs.max_times_sampled == 1);
  CHECK(jobs.lease == std::chrono::milliseconds(2500));
  REQUIRE(config.checkpoint);
  CHECK(config.checkpoint->every == std::chrono::milliseconds(900000));
  CHECK(config.checkpoint->path == "ckpt/replay");
  CHECK(config.engine.limits.max_item_bytes == 1048576);
}

TEST_CASE("no checkpoint key means none - and a stack defaults to lifo") {
  const auto config = parse_config(R"({"tables":[{"name":"s","kind":"stack","max_size":5}]})");
  CHECK_FALSE(config.checkpoint);
  CHECK(config.engine.tables[0].sampler.kind == SelectorKind::lifo);
  CHECK(config.engine.tables[0].rate_limiter.max_diff == 5.0);
}

TEST_CASE("errors name the key's path or the table") {
  const auto error_of = [](const std::string& json) {
    try {
      parse_config(json);
    } catch (const ConfigError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("not json"), Catch::Contains("not valid JSON"));
  CHECK_THAT(error_of(R"({"tables":[]})"), Catch::Contains("SLIPWAY_REPLAY_CONFIG: tables: must hold"));
  CHECK_THAT(error_of(R"({"tables":[{"name":"t","max_size":0}]})"),
             Catch::Contains("tables[0].max_size: must be at least 1"));
  CHECK_THAT(error_of(R"({"tables":[{"name":"t","max_size":-3}]})"), Catch::Contains("tables[0].max_size"));
  CHECK_THAT(error_of(R"({"tables":[{"name":"t","sampler":{"type":"random"}}]})"),
             Catch::Contains("tables[0].sampler.type: unknown value 'random'"));
  CHECK_THAT(error_of(R"({"tables":[{"name":"t","kind":"heap"}]})"), Catch::Contains("tables[0].kind"));
  CHECK_THAT(error_of(R"({"tables":[{"name":"t","rate_limiter":{"type":"ratio","samples_per_insert":8,"min_size_to_sample":10,"error_buffer":2}}]})"),
             Catch::Contains("table 't'") && Catch::Contains("error_buffer"));
  CHECK_THAT(error_of(R"({"tables":[{"name":"t"},{"name":"t"}]})"), Catch::Contains("tables[1].name: 't' appears twice"));
  CHECK_THAT(error_of(R"({"tables":[{"name":""}]})"), Catch::Contains("tables[0]"));
  CHECK_THAT(error_of(R"({"tables":[{"name":"t","sampler":{"type":"prioritized","exponent":-1}}]})"),
             Catch::Contains("tables[0].sampler.exponent"));
  CHECK_THAT(error_of(R"({"tables":[{"name":"t"}],"limits":{"max_item_bytes":1e12}})"),
             Catch::Contains("limits.max_item_bytes"));
  CHECK_THAT(error_of(std::string(2 << 20, ' ')), Catch::Contains("1 MiB"));
}
