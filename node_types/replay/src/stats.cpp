// The JSON of a replay shard's replay/stats/NODE.REPLICA key (see stats.hpp).
#include "slipway/replay/stats.hpp"

#include <nlohmann/json.hpp>

#include "slipway/core/contract.hpp"

namespace slipway::replay {

std::string stats_json(const ShardStats& stats, std::int64_t unix_ms) {
  nlohmann::json tables = nlohmann::json::array();
  for (const TableStats& table : stats.tables) {
    tables.push_back({{"name", table.name},
                      {"size", table.size},
                      {"max_size", table.max_size},
                      {"inserted_total", table.inserted_total},
                      {"sampled_total", table.sampled_total},
                      {"parked_inserts", table.parked_inserts},
                      {"parked_samples", table.parked_samples},
                      {"limiter_blocked_seconds_total", table.limiter_blocked_seconds_total}});
  }
  nlohmann::json document = {{"unix_ms", unix_ms}, {"last_checkpoint_unix_ms", nullptr}, {"tables", tables}};
  if (stats.last_checkpoint_unix_ms) document["last_checkpoint_unix_ms"] = *stats.last_checkpoint_unix_ms;
  // A table name is any bytes (the topology's TOML key): never refused here.
  return document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string stats_key(const std::string& node, std::uint32_t replica) {
  return core::keys::replay_stats(node, replica);
}

}  // namespace slipway::replay
