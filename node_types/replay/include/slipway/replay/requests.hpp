// The engine's requests and replies, decoded (the wire codec in wire.hpp
// turns them into the bytes of docs/replay.md and back).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "slipway/replay/item_store.hpp"
#include "slipway/replay/table.hpp"
#include "slipway/replay/types.hpp"

namespace slipway::replay {

struct InsertItem {
  ItemBytes data;  // its own bytes, or a part of the request's `buffer`
  std::vector<std::pair<std::string, double>> priorities;  // table -> priority
};

struct InsertRequest {
  std::uint64_t seq = 0;  // 0: no de-duplication
  std::uint32_t wait_ms = 0;
  std::vector<InsertItem> items;
  // The request's bytes, when its items' data are parts of them (the
  // server's requests: kept, not copied); else none.
  Buffer buffer;
};

struct SampleRequest {
  std::string table;
  std::uint32_t n = 1;
  std::uint32_t min_n = 1;
  std::uint32_t wait_ms = 0;
};

struct LeaseRequest {
  std::string table;
  std::uint32_t n = 1;
  std::uint32_t wait_ms = 0;
};

struct MutateRequest {
  std::string table;
  std::vector<std::pair<Key, double>> updates;
  std::vector<Key> deletes;
};

struct Outcome {
  Status status = Status::ok;
  std::string message;  // invalid, too_large
};

struct InsertReply : Outcome {
  std::vector<Key> keys;
};

struct SampleReply : Outcome {
  std::vector<Sampled> items;
};

struct LeaseReply : Outcome {
  std::vector<Leased> items;
};

struct MutateReply : Outcome {
  std::uint32_t updated = 0;
  std::uint32_t deleted = 0;
};

struct CountReply : Outcome {
  std::uint32_t count = 0;
};

struct PathReply : Outcome {
  std::string path;
};

struct TableInfo {
  std::string name;
  TableKind kind = TableKind::table;
  SelectorSpec sampler;
  SelectorSpec remover;
  std::uint64_t max_size = 0;
  std::uint32_t max_times_sampled = 0;
  std::uint64_t size = 0;
  std::uint64_t leased = 0;
  RateLimiterConfig limiter;
  RateLimiterCounters counters;
  std::uint32_t parked_inserts = 0;
  std::uint32_t parked_samples = 0;
  std::uint64_t lease_ms = 0;
};

struct InfoReply : Outcome {
  std::uint32_t shard = 0;
  std::uint32_t server_attempt = 0;
  std::uint64_t data_bytes = 0;
  std::uint64_t max_data_bytes = 0;
  std::uint64_t max_item_bytes = 0;
  std::string checkpoint_path;
  std::vector<TableInfo> tables;
};

// Completions of requests that may park. Called exactly once, inside the
// engine call that decides the answer (the request's own, a later one that
// unblocks it, or tick() at its deadline); they must not call the engine.
template <typename Reply>
using Done = std::function<void(Reply)>;

}  // namespace slipway::replay
