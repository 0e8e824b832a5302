// What a replay shard reports of its tables (issue 29): the program key
// replay/stats/NODE.REPLICA, put every 2 s by slipway-replay, read by the
// launcher's status document and metrics (docs/observe.md).
//
// Contract: the counters are of this shard process (they start at 0 when
// it starts, a restored checkpoint included, and are never reset, a
// table's reset included): inserted_total counts items inserted into the
// table, sampled_total items sampled from it (a work table's: items
// leased); limiter_blocked_seconds_total the time requests spent parked on
// the table (waiting for its rate limiter, an empty queue, or parked
// inserts ahead of them), those still parked counted up to `now`, so it
// never decreases. stats_json() writes the key's document:
//   {"unix_ms": N, "last_checkpoint_unix_ms": N or null,
//    "tables": [{"name", "size", "max_size", "inserted_total",
//                "sampled_total", "parked_inserts", "parked_samples",
//                "limiter_blocked_seconds_total"}]}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace slipway::replay {

struct TableStats {
  std::string name;
  std::uint64_t size = 0;
  std::uint64_t max_size = 0;
  std::uint64_t inserted_total = 0;
  std::uint64_t sampled_total = 0;
  std::uint64_t parked_inserts = 0;
  std::uint64_t parked_samples = 0;  // samples, or a work table's leases
  double limiter_blocked_seconds_total = 0;
};

struct ShardStats {
  std::vector<TableStats> tables;
  std::optional<std::int64_t> last_checkpoint_unix_ms;  // written or loaded; nothing: none yet
};

std::string stats_json(const ShardStats& stats, std::int64_t unix_ms);

// "replay/stats/NODE.REPLICA"
std::string stats_key(const std::string& node, std::uint32_t replica);

}  // namespace slipway::replay
