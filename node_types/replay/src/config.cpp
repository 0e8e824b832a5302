// Parsing SLIPWAY_REPLAY_CONFIG: untrusted JSON to a shard's configuration.
// The tables and the checkpoint are read by core's reader of the replay
// schema (core::replay_settings_from_json, the one `slipway plan --json`
// shows), with its defaults; this file bounds the text, adapts core's
// settings to the engine's tables and reads the shard's own `limits`.
#include "slipway/replay/config.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "slipway/core/contract.hpp"
#include "slipway/core/plan_json.hpp"
#include "slipway/core/replay_config.hpp"

namespace slipway::replay {

namespace {
using nlohmann::json;

constexpr std::size_t kMaxText = std::size_t{1} << 20;
const std::string kWhat = core::env::kReplayConfig;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw ConfigError(kWhat + ": " + where + ": " + what);
}

SelectorSpec selector(const core::ReplaySelector& s) {
  return {s.type, s.type == SelectorKind::prioritized ? s.exponent : SelectorSpec{}.exponent};
}

RateLimiterConfig limiter(const core::ReplayRateLimiter& l, std::uint64_t max_size) {
  switch (l.type) {
    case core::ReplayRateLimiterType::min_size:
      return RateLimiterConfig::min_size(static_cast<std::int64_t>(l.min_size));
    case core::ReplayRateLimiterType::ratio:
      return RateLimiterConfig::sample_to_insert_ratio(l.samples_per_insert,
                                                       static_cast<std::int64_t>(l.min_size_to_sample), l.error_buffer);
    case core::ReplayRateLimiterType::queue:
      return RateLimiterConfig::queue(static_cast<std::int64_t>(max_size));
    case core::ReplayRateLimiterType::stack:
      return RateLimiterConfig::stack(static_cast<std::int64_t>(max_size));
  }
  throw std::invalid_argument("unknown rate limiter");
}

// Core's table as the engine's, checked by the engine's own rules (Reverb's
// rate limiter refusals, the table's bounds).
TableConfig table_config(const core::ReplayTable& t) {
  TableConfig config;
  config.name = t.name.value;
  config.kind = t.kind.value;
  config.sampler = selector(t.sampler.value);
  config.remover = selector(t.remover.value);
  config.max_size = t.max_size.value;
  config.max_times_sampled = t.max_times_sampled.value;
  config.lease = std::chrono::milliseconds(t.lease_ms.value);
  try {
    config.rate_limiter = limiter(t.rate_limiter.value, t.max_size.value);
    Table check(config);  // the table's own checks, with its name
  } catch (const std::invalid_argument& error) {
    fail("table '" + config.name + "'", error.what());
  }
  return config;
}

// limits.KEY: a whole number from 1 to `high`, `fallback` when left out.
std::uint64_t limit(const json& limits, const std::string& key, std::uint64_t high, std::uint64_t fallback) {
  if (!limits.contains(key)) return fallback;
  const json& value = limits.at(key);
  const bool whole = value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0) ||
                     (value.is_number_float() && std::floor(value.get<double>()) == value.get<double>() &&
                      value.get<double>() >= 0 && value.get<double>() < 1.8e19);
  const auto n = whole ? value.get<std::uint64_t>() : 0;
  if (n < 1 || n > high) fail("limits." + key, "must be a whole number from 1 to " + std::to_string(high));
  return n;
}
}  // namespace

ServerConfig parse_config(std::string_view json_text) {
  if (json_text.size() > kMaxText) fail("the text", std::to_string(json_text.size()) + " bytes (at most 1 MiB)");
  json root;
  try {
    root = json::parse(json_text.begin(), json_text.end());
  } catch (const json::exception& error) {
    throw ConfigError(kWhat + " is not valid JSON: " + error.what());
  }
  core::ReplaySettings settings;
  try {
    settings = core::replay_settings_from_json(root, kWhat);
  } catch (const core::PlanJsonError& error) {
    throw ConfigError(error.what());
  }
  ServerConfig config;
  for (const core::ReplayTable& table : settings.tables) config.engine.tables.push_back(table_config(table));
  if (const auto& checkpoint = settings.checkpoint.value) {
    CheckpointConfig out;
    out.every = std::chrono::milliseconds(checkpoint->every_ms.value.value_or(0));
    out.path = checkpoint->path.value.value_or("");
    config.checkpoint = out;
  }
  if (root.contains("limits")) {
    const json& limits = root.at("limits");
    if (!limits.is_object()) fail("limits", "must be an object");
    auto& engine = config.engine.limits;
    engine.max_item_bytes = limit(limits, "max_item_bytes", std::uint64_t{200} << 20, engine.max_item_bytes);
    engine.max_data_bytes = limit(limits, "max_data_bytes", std::uint64_t{1} << 50, engine.max_data_bytes);
  }
  return config;
}

}  // namespace slipway::replay
