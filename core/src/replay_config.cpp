// A replay node's configuration as JSON, both ways (replay_config.hpp,
// replay_json.hpp): the one reader of the replay schema, used for the plan
// JSON and by slipway-replay for SLIPWAY_REPLAY_CONFIG; its variable and its
// program.
#include "slipway/core/replay_config.hpp"

#include <cmath>
#include <filesystem>

#include "limits.hpp"
#include "replay_json.hpp"
#include "replay_table.hpp"
#include "slipway/core/contract.hpp"

namespace slipway::core {

namespace {

json selector_json(const ReplaySelector& s) {
  json j{{"type", to_string(s.type)}};
  if (s.type == ReplaySelectorType::prioritized) j["exponent"] = s.exponent;
  return j;
}

json rate_limiter_json(const ReplayRateLimiter& l) {
  json j{{"type", to_string(l.type)}};
  if (l.type == ReplayRateLimiterType::ratio) {
    j["samples_per_insert"] = l.samples_per_insert;
    j["min_size_to_sample"] = l.min_size_to_sample;
    j["error_buffer"] = l.error_buffer;
  } else if (l.type == ReplayRateLimiterType::min_size) {
    j["min_size"] = l.min_size;
  }
  return j;
}

json table_json(const ReplayTable& t) {
  return json{{"name", t.name.value},
              {"kind", to_string(t.kind.value)},
              {"sampler", selector_json(t.sampler.value)},
              {"remover", selector_json(t.remover.value)},
              {"max_size", t.max_size.value},
              {"max_times_sampled", t.max_times_sampled.value},
              {"rate_limiter", rate_limiter_json(t.rate_limiter.value)},
              {"lease_ms", t.lease_ms.value}};
}

template <class Enum>
Enum name_in(const In& in, const std::string& key, std::optional<Enum> (*from_string)(std::string_view)) {
  const std::string s = in.string(key);
  const auto e = from_string(s);
  if (!e) in.fail(key, "unknown value '" + s + "'");
  return *e;
}

std::uint64_t count_in(const In& in, const std::string& key, std::uint64_t min, std::uint64_t max) {
  const std::uint64_t value = in.uint(key, max);
  if (value < min) in.fail(key, "must be at least " + std::to_string(min));
  return value;
}

ReplaySelector selector_from(const In& in) {
  ReplaySelector s{name_in(in, "type", &replay_selector_from_string), 0};
  if (s.type == ReplaySelectorType::prioritized) s.exponent = in.number("exponent", 0, kMaxPriorityExponent);
  return s;
}

// A ratio needs samples_per_insert and error_buffer (docs/topology.md);
// min_size_to_sample and min_size are 1 when left out.
ReplayRateLimiter rate_limiter_from(const In& in) {
  ReplayRateLimiter l;
  l.type = name_in(in, "type", &replay_rate_limiter_from_string);
  if (l.type == ReplayRateLimiterType::ratio) {
    l.samples_per_insert = in.number("samples_per_insert", 0, kMaxSamplesPerInsert);
    if (in.has("min_size_to_sample")) l.min_size_to_sample = count_in(in, "min_size_to_sample", 1, kMaxReplayTableSize);
    l.error_buffer = in.number("error_buffer", 0, kMaxErrorBuffer);
  } else if (l.type == ReplayRateLimiterType::min_size) {
    if (in.has("min_size")) l.min_size = count_in(in, "min_size", 1, kMaxReplayTableSize);
  }
  return l;
}

// A table: its name, and every other key its kind's default
// (replay_table_defaults) when left out.
ReplayTable table_from(const In& in) {
  const ReplayTableKind kind =
      in.has("kind") ? name_in(in, "kind", &replay_table_kind_from_string) : ReplayTableKind::table;
  ReplayTable t = replay_table_defaults(kind);
  t.name = at_unknown(in.string("name"));
  if (t.name.value.empty() || t.name.value.size() > limits::kMaxNameLength) in.fail("name", "must be 1 to 64 bytes");
  if (in.has("sampler")) t.sampler.value = selector_from(in.object("sampler"));
  if (in.has("remover")) t.remover.value = selector_from(in.object("remover"));
  if (in.has("max_size")) t.max_size.value = count_in(in, "max_size", 1, kMaxReplayTableSize);
  if (in.has("max_times_sampled")) {
    t.max_times_sampled.value = static_cast<std::uint32_t>(in.uint("max_times_sampled", kMaxReplayTimesSampled));
  }
  if (in.has("rate_limiter")) t.rate_limiter.value = rate_limiter_from(in.object("rate_limiter"));
  if (in.has("lease_ms")) t.lease_ms.value = count_in(in, "lease_ms", 1, kMaxReplayLeaseMs);
  return t;
}

}  // namespace

json replay_config_json(const NodeSpec& node) {
  json tables = json::array();
  for (const ReplayTable& t : node.replay.tables) tables.push_back(table_json(t));
  json j{{"tables", tables}};
  if (const auto& checkpoint = node.replay.checkpoint.value) {
    json c = json::object();
    if (checkpoint->every_ms.value) c["every_ms"] = *checkpoint->every_ms.value;
    if (const auto& path = checkpoint->path.value) {
      c["path"] = (std::filesystem::path(node.workdir.value) / *path).lexically_normal().string();
    }
    j["checkpoint"] = c;
  }
  return j;
}

ReplaySettings read_replay_settings(const In& in) {
  ReplaySettings settings;
  const std::vector<In> tables = in.array("tables", kMaxReplayTables);
  if (tables.empty()) in.fail("tables", "must hold at least one table");
  for (std::size_t i = 0; i < tables.size(); ++i) {
    ReplayTable table = table_from(tables[i]);
    for (const ReplayTable& earlier : settings.tables) {
      if (earlier.name.value == table.name.value) tables[i].fail("name", "'" + table.name.value + "' appears twice");
    }
    settings.tables.push_back(std::move(table));
  }
  if (in.has("checkpoint")) {
    const In c = in.object("checkpoint");
    ReplayCheckpoint checkpoint;
    if (c.has("every_ms")) checkpoint.every_ms.value = count_in(c, "every_ms", 1, kMaxReplayCheckpointEveryMs);
    if (c.has("path")) {
      checkpoint.path.value = c.string("path");
      if (checkpoint.path.value->empty() || checkpoint.path.value->size() > kMaxCheckpointPath) {
        c.fail("path", "must be 1 to " + std::to_string(kMaxCheckpointPath) + " bytes");
      }
    }
    settings.checkpoint.value = std::move(checkpoint);
  }
  return settings;
}

ReplaySettings replay_settings_from_json(const json& config, const std::string& label) {
  return read_replay_settings(In(config, "", label));
}

EnvMap replay_environment(const NodeSpec& node) {
  if (node.type.value != NodeType::replay) return {};
  return {{env::kReplayConfig, replay_config_json(node).dump()}};
}

void set_replay_program(Program& program, const std::string& path) {
  for (NodeSpec& node : program.nodes) {
    if (node.type.value == NodeType::replay) node.command.value = {path};
  }
}

}  // namespace slipway::core
