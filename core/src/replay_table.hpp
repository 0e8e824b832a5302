// Reading a replay node's keys: its tables ([node.NAME.tables.TABLE]) and
// its checkpoint ([node.NAME.checkpoint]), each value checked for its type
// and range as it is read, with the kind's defaults filled in for what the
// file leaves out (replay_table_defaults). The rules across keys and tables
// (what would deadlock, what a kind fixes) are validate_replay.cpp's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "reader.hpp"
#include "slipway/core/topology.hpp"

namespace slipway::core {

inline constexpr std::size_t kMaxReplayTables = 64;                 // per node
inline constexpr std::uint64_t kMaxReplayTableSize = 1000000000;    // items per table
inline constexpr std::uint32_t kMaxReplayTimesSampled = 2147483647;
inline constexpr double kMaxSamplesPerInsert = 1e6;
inline constexpr double kMaxErrorBuffer = 1e15;
inline constexpr double kMaxPriorityExponent = 10;
inline constexpr std::size_t kMaxCheckpointPath = 4095;             // PATH_MAX - 1
inline constexpr std::uint64_t kMinReplayLeaseMs = 100;
inline constexpr std::uint64_t kMaxReplayLeaseMs = 7ull * 24 * 3600 * 1000;             // 7 days
inline constexpr std::uint64_t kMinReplayCheckpointEveryMs = 1000;
inline constexpr std::uint64_t kMaxReplayCheckpointEveryMs = 30ull * 24 * 3600 * 1000;  // 30 days

// `tables` of a node: every [node.NAME.tables.TABLE] (`what`: "'tables' in
// node 'NAME'").
void read_replay_tables(Reader& reader, const toml::node& value, NodeSpec& node, const std::string& what);
// `checkpoint` of a node: [node.NAME.checkpoint].
void read_replay_checkpoint(Reader& reader, const toml::node& value, NodeSpec& node, const std::string& what);

// 8, 0.5, 1e+15: a number as short as it reads exactly (messages).
std::string replay_number_text(double x);

// What a replay node has that the file cannot give: its command, the replay
// server (kReplayProgram; the launchers put its path there,
// set_replay_program), and `daemon = true` unless the file says otherwise
// (a replay server serves until the program ends). Nothing for other nodes.
void finish_replay_node(NodeSpec& node);

// The keys of one replay table ("tables"), of its rate limiter
// ("rate_limiter") and of the checkpoint table ("checkpoint"); nullptr for
// any other name.
const std::vector<std::string_view>* replay_table_keys(std::string_view table);

}  // namespace slipway::core
