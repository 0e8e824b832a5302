// A replay node's configuration as JSON, both ways (replay_config.hpp,
// replay_json.hpp), its variable and its program.
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

ReplayRateLimiter rate_limiter_from(const In& in) {
  ReplayRateLimiter l;
  l.type = name_in(in, "type", &replay_rate_limiter_from_string);
  if (l.type == ReplayRateLimiterType::ratio) {
    l.samples_per_insert = in.number("samples_per_insert", 0, kMaxSamplesPerInsert);
    l.min_size_to_sample = count_in(in, "min_size_to_sample", 1, kMaxReplayTableSize);
    l.error_buffer = in.number("error_buffer", 0, kMaxErrorBuffer);
  } else if (l.type == ReplayRateLimiterType::min_size) {
    l.min_size = count_in(in, "min_size", 1, kMaxReplayTableSize);
  }
  return l;
}

ReplayTable table_from(const In& in) {
  ReplayTable t;
  t.name = at_unknown(in.string("name"));
  if (t.name.value.empty() || t.name.value.size() > limits::kMaxNameLength) in.fail("name", "must be 1 to 64 bytes");
  t.kind = at_unknown(name_in(in, "kind", &replay_table_kind_from_string));
  t.sampler = at_unknown(selector_from(in.object("sampler")));
  t.remover = at_unknown(selector_from(in.object("remover")));
  t.max_size = at_unknown(count_in(in, "max_size", 1, kMaxReplayTableSize));
  t.max_times_sampled = at_unknown(static_cast<std::uint32_t>(in.uint("max_times_sampled", kMaxReplayTimesSampled)));
  t.rate_limiter = at_unknown(rate_limiter_from(in.object("rate_limiter")));
  t.lease_ms = at_unknown(in.uint("lease_ms", kMaxReplayLeaseMs));
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
  for (const In& table : in.array("tables", kMaxReplayTables)) settings.tables.push_back(table_from(table));
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
