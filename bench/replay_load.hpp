// The load of `slipway-bench replay`, one process per role: an actor inserts
// items of `item_bytes` in batches of `batch`, keeping `in_flight` batches
// in flight; the learner samples `sample_n` items uniformly, keeping
// `sample_in_flight` requests in flight. Each role runs from `start` to
// `to` and counts the items whose request completed in [from, to). One
// implementation per service: replay_redis.cpp, replay_json.cpp,
// replay_slipway.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace slipway::bench {

struct ReplayLoad {
  std::size_t item_bytes = 1024;
  int batch = 64;
  int in_flight = 8;
  int sample_n = 32;
  int sample_in_flight = 4;
  std::uint64_t capacity = 100000;  // items the service keeps (oldest dropped first)
  // The learner checks that items come in the order they were inserted
  // (a queue of one producer): each actor's numbers without a gap, and no
  // actor's item after a later actor's (actors' ids grow round by round).
  bool in_order = false;
};

struct LoadWindow {
  std::chrono::steady_clock::time_point start, from, to;
  bool counts(std::chrono::steady_clock::time_point t) const { return t >= from && t < to; }
  bool over(std::chrono::steady_clock::time_point t) const { return t >= to; }
};

// `id`'s item payload: item_bytes bytes, its first bytes the actor and the
// item's number, the rest printable filler (valid in a JSON string).
std::string replay_item(std::size_t item_bytes, int id, std::uint64_t number);

// The actor and number of a replay_item() of `item_bytes`; nothing when
// `item` is not one whole (another size, no head, a last byte not filler).
struct ItemId {
  int actor = 0;
  std::uint64_t number = 0;
};
std::optional<ItemId> parse_replay_item(std::string_view item, std::size_t item_bytes);

// Checks a learner's items for ReplayLoad::in_order; throws saying which
// item broke it.
class OrderCheck {
 public:
  void next(const ItemId& item);

 private:
  bool any_ = false;
  ItemId last_;
};

// What one role completed in the window.
struct RoleResult {
  std::uint64_t items = 0;
  std::uint64_t requests = 0;
};

// The loop of every role (replay_pipeline.cpp): sleeps until w.start, then
// keeps `depth` requests in flight until w.to. `add()` queues one request,
// `send()` writes what was queued, `complete()` waits for the oldest reply
// and returns the items it carried. Counts what completed in [w.from, w.to).
struct Pipeline {
  std::function<void()> add;
  std::function<void()> send;
  std::function<std::uint64_t()> complete;
};
RoleResult run_pipeline(const LoadWindow& w, int depth, const Pipeline& pipeline);

// Redis (bench/replay_redis.cpp); `address` is host:port.
RoleResult redis_actor(const std::string& address, const ReplayLoad& load, const LoadWindow& w, int id);
RoleResult redis_learner(const std::string& address, const ReplayLoad& load, const LoadWindow& w);

// The JSON-lines server (bench/json_replay.py; bench/replay_json.cpp).
RoleResult json_actor(const std::string& address, const ReplayLoad& load, const LoadWindow& w, int id);
RoleResult json_learner(const std::string& address, const ReplayLoad& load, const LoadWindow& w);

// slipway-replay (bench/replay_slipway.cpp); `node` is the replay node's
// name in the rendezvous named by the environment (SLIPWAY_RDZV, SLIPWAY_TOKEN).
RoleResult slipway_actor(const std::string& node, const ReplayLoad& load, const LoadWindow& w, int id);
RoleResult slipway_learner(const std::string& node, const ReplayLoad& load, const LoadWindow& w);

}  // namespace slipway::bench
