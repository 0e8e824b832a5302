// The settings of a replay node (type = "replay", docs/topology.md "Replay
// nodes"): its tables ([node.NAME.tables.TABLE]) and its checkpoint
// ([node.NAME.checkpoint]), as the topology gives them, with every key the
// file left out filled with its kind's default.
//
// Contract: a loaded Program's replay tables hold a value in every field
// (replay_table_defaults(kind) for what the file left out); a field's
// location is known iff the file (not a default) gave it. The checkpoint is
// present iff [node.NAME.checkpoint] was given; its keys are optional.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "slipway/core/diagnostic.hpp"

namespace slipway::core {

// The program a replay node's tasks run (docs/topology.md): found next to
// `slipway` by the launchers (set_replay_program).
inline constexpr std::string_view kReplayProgram = "slipway-replay";

// `kind`: a plain table, or one that fixes its own sampler, remover,
// max_times_sampled and rate limiter (queue: FIFO, stack: LIFO, work: FIFO
// handed out on lease). The one enum set of the replay schema: the replay
// engine's TableKind and SelectorKind are these, and their values are the
// wire's (docs/replay.md, `info`).
enum class ReplayTableKind : std::uint8_t { table = 0, queue = 1, stack = 2, work = 3 };

// A sampler or remover (Reverb's item selectors).
enum class ReplaySelectorType : std::uint8_t {
  uniform = 0,
  fifo = 1,
  lifo = 2,
  max_heap = 3,
  min_heap = 4,
  prioritized = 5,
};
struct ReplaySelector {
  ReplaySelectorType type = ReplaySelectorType::uniform;
  double exponent = 0;  // prioritized only: p^exponent weighs an item
  friend bool operator==(const ReplaySelector&, const ReplaySelector&) = default;
};

// Reverb's rate limiters. `ratio` is SampleToInsertRatio(samples_per_insert,
// min_size_to_sample, error_buffer): samples may run while
// inserts * samples_per_insert - samples stays above
// min_size_to_sample * samples_per_insert - error_buffer, inserts while it
// stays below min_size_to_sample * samples_per_insert + error_buffer.
// `min_size` blocks samples until min_size items are in the table. `queue`
// and `stack` are what those kinds fix (one sample per insert, the table's
// max_size as the bound).
enum class ReplayRateLimiterType { ratio, min_size, queue, stack };
struct ReplayRateLimiter {
  ReplayRateLimiterType type = ReplayRateLimiterType::min_size;
  double samples_per_insert = 0;          // ratio
  std::uint64_t min_size_to_sample = 1;   // ratio
  double error_buffer = 0;                // ratio
  std::uint64_t min_size = 1;             // min_size
  friend bool operator==(const ReplayRateLimiter&, const ReplayRateLimiter&) = default;
};

struct ReplayTable {
  Located<std::string> name;                  // at the key TABLE of [node.NAME.tables.TABLE]
  Located<ReplayTableKind> kind{ReplayTableKind::table};
  Located<ReplaySelector> sampler;
  Located<ReplaySelector> remover;
  Located<std::uint64_t> max_size{0};
  Located<std::uint32_t> max_times_sampled{0};  // 0: unlimited
  Located<ReplayRateLimiter> rate_limiter;
  Located<std::uint64_t> lease_ms{0};           // work tables: how long a lease lasts
};

// [node.NAME.checkpoint]: every how long the server writes a checkpoint
// (none if unset), and where (the server's default if unset: under the run
// directory). A relative path is taken from the node's workdir.
struct ReplayCheckpoint {
  Located<std::optional<std::uint64_t>> every_ms;
  Located<std::optional<std::string>> path;
  friend bool operator==(const ReplayCheckpoint& a, const ReplayCheckpoint& b) {
    return a.every_ms.value == b.every_ms.value && a.path.value == b.path.value;
  }
};

struct ReplaySettings {
  SourceLocation tables_where;  // the `tables` key, when given
  std::vector<ReplayTable> tables;  // file order
  Located<std::optional<ReplayCheckpoint>> checkpoint;
};

std::string_view to_string(ReplayTableKind kind);
std::optional<ReplayTableKind> replay_table_kind_from_string(std::string_view s);
std::string_view to_string(ReplaySelectorType type);
std::optional<ReplaySelectorType> replay_selector_from_string(std::string_view s);
std::string_view to_string(ReplayRateLimiterType type);
std::optional<ReplayRateLimiterType> replay_rate_limiter_from_string(std::string_view s);

// What a table of `kind` has for every key the file leaves out: a table
// samples uniformly, removes FIFO, holds 1,000,000 items, samples an item
// any number of times and samples once it holds one item; a queue (stack)
// is FIFO (LIFO) with each item sampled once; a work table is a queue whose
// items are leased for 60 s. Every kind: max_size 1,000,000, lease 60 s.
ReplayTable replay_table_defaults(ReplayTableKind kind);

}  // namespace slipway::core
