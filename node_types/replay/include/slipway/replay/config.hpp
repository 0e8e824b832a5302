// The configuration of a replay shard, read from the JSON that the launch
// layer puts in SLIPWAY_REPLAY_CONFIG (docs/replay.md, "Configuration"):
// tables (kind, sampler, remover, max_size, max_times_sampled, rate_limiter,
// lease_ms), an optional checkpoint (every_ms, path) and optional limits
// (max_item_bytes, max_data_bytes).
//
// Contract: the tables and the checkpoint are read by core's reader of the
// replay schema (core::replay_settings_from_json), the one behind `slipway
// plan --json`: the same bounds, and a missing key takes its kind's default
// (core::replay_table_defaults). The text is untrusted: at most 1 MiB, at
// most 64 tables, every number range-checked; an unknown key is ignored.
// Errors throw ConfigError naming the key's path ("SLIPWAY_REPLAY_CONFIG:
// tables[1].max_size: ...") or the table. Reverb's rate limiter refusals
// apply.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "slipway/replay/engine.hpp"

namespace slipway::replay {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CheckpointConfig {
  std::chrono::milliseconds every{0};  // 0: only when asked (the checkpoint method)
  std::string path;                    // empty: $SLIPWAY_RUN_DIR/replay/NODE.REPLICA
};

struct ServerConfig {
  EngineConfig engine;
  std::optional<CheckpointConfig> checkpoint;
};

ServerConfig parse_config(std::string_view json_text);

}  // namespace slipway::replay
