// What a replay node's tasks are given: the program they run, slipway's
// replay server (set_replay_program), and SLIPWAY_REPLAY_CONFIG, the JSON of
// the node's tables and checkpoint with every default filled in
// (docs/topology.md "Replay nodes" describes its fields). The plan JSON
// carries the same object as the node's "replay" field.
//
// Contract: the plan JSON carries the configuration both ways
// (plan_from_json reads it back with every field's type and bounds checked),
// and replay_config_json of a node read back gives the same JSON again (a
// relative checkpoint path is made absolute against the node's workdir).
// slipway-replay reads SLIPWAY_REPLAY_CONFIG with the same reader
// (replay_settings_from_json), so a shard has what `slipway plan --json`
// shows, key for key, with the same defaults (replay_table_defaults).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "slipway/core/environment.hpp"
#include "slipway/core/topology.hpp"

namespace slipway::core {

// {"tables": [...], "checkpoint": {...}} of a replay node ("checkpoint" only
// when the node has [node.NAME.checkpoint]).
nlohmann::json replay_config_json(const NodeSpec& node);

// Reads that object back: every field's type and bounds checked, a key left
// out taking its kind's default (replay_table_defaults: a ratio's
// samples_per_insert and error_buffer and a prioritized selector's exponent
// have none and must be given), at least one table, no name twice; unknown
// keys are ignored. Throws PlanJsonError "LABEL: tables[1].max_size: ...".
ReplaySettings replay_settings_from_json(const nlohmann::json& config, const std::string& label);

// SLIPWAY_REPLAY_CONFIG for a task of a replay node; nothing for others.
EnvMap replay_environment(const NodeSpec& node);

// Makes `path` (where slipway-replay is, found next to `slipway`) the
// command of every replay node of the program.
void set_replay_program(Program& program, const std::string& path);

}  // namespace slipway::core
