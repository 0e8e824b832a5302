// The replay engine of one shard: its tables, the requests parked until a
// rate limiter (or an empty queue) lets them go, de-duplication of re-sent
// inserts, and the leases of work tables. No I/O and no clock: every call is given `now`, and tick(now)
// answers what is due (parked requests at their deadline with not_ready,
// expired leases back to their queues). docs/replay.md states the rules.
//
// Contract: not thread-safe (the server serialises calls). Requests that
// may park complete through their Done exactly once; the others return
// their reply. Bad requests are answered with Status::invalid or too_large
// and change nothing. A lease is bound to the random token handed out with
// it, never to the caller's self-declared identity: ack and nack count only
// the leases whose token they bring.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "slipway/replay/item_store.hpp"
#include "slipway/replay/requests.hpp"
#include "slipway/replay/stats.hpp"
#include "slipway/replay/table.hpp"
#include "slipway/replay/types.hpp"

namespace slipway::replay {

struct Snapshot;

struct EngineLimits {
  std::uint64_t max_item_bytes = std::uint64_t{64} << 20;
  std::uint64_t max_data_bytes = std::uint64_t{8} << 30;
  std::uint32_t max_wait_ms = 600000;
  std::uint64_t max_reply_bytes = std::uint64_t{64} << 20;
  std::uint32_t max_items_per_call = 65536;
  // A parked sample or lease that cannot go yet is overtaken by later ones
  // of its table that can, until it has waited this long; then it holds
  // them until it goes (so none starves).
  std::chrono::milliseconds overtake_window{1000};
};

struct EngineConfig {
  std::vector<TableConfig> tables;
  EngineLimits limits;
};

namespace detail {
class InsertMemory;
}  // namespace detail

class Engine {
 public:
  // Throws std::invalid_argument for a bad table configuration (naming it)
  // or a repeated table name.
  Engine(EngineConfig config, std::uint32_t shard, std::uint64_t seed = 1);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void insert(const Caller& caller, InsertRequest request, Time now, Done<InsertReply> done);
  void sample(const Caller& caller, SampleRequest request, Time now, Done<SampleReply> done);
  void lease(const Caller& caller, LeaseRequest request, Time now, Done<LeaseReply> done);
  MutateReply mutate(const Caller& caller, const MutateRequest& request, Time now);
  Outcome reset(const Caller& caller, const std::string& table, Time now);
  CountReply ack(const Caller& caller, const std::string& table, const std::vector<LeaseRef>& leases, Time now);
  CountReply nack(const Caller& caller, const std::string& table, const std::vector<LeaseRef>& leases, Time now);
  InfoReply info(const Caller& caller, Time now);

  // Answers parked requests whose deadline has come (not_ready) and
  // returns expired leases to their queues.
  void tick(Time now);
  // Answers every parked request with not_ready (the server is stopping).
  void drain(Time now);
  // When tick() next has something to do; nullopt: nothing is waiting.
  std::optional<Time> next_deadline() const;
  std::size_t parked() const;
  // Each table's counters and parked requests (stats.hpp), the time
  // requests still parked have waited counted up to `now`.
  std::vector<TableStats> stats(Time now) const;

  // The state a checkpoint holds (blobs shared, no data copied), and
  // restoring it into a fresh engine: tables matched by name (a table the
  // configuration no longer has is skipped and named in the returned
  // notes), items, priorities, times sampled, limiter counters and the
  // de-duplication memory of completed inserts (client id, seq, keys).
  Snapshot snapshot() const;
  std::vector<std::string> restore(Snapshot snapshot);

  ItemStore& store() noexcept { return store_; }
  std::uint32_t shard() const noexcept { return shard_; }
  const EngineLimits& limits() const noexcept { return limits_; }
  std::size_t table_count() const noexcept { return tables_.size(); }
  std::uint64_t item_count() const;
  void set_server_attempt(std::uint32_t attempt) { server_attempt_ = attempt; }
  void set_checkpoint_path(std::string path) { checkpoint_path_ = std::move(path); }

 private:
  struct ParkedInsert;
  struct ParkedRead;
  struct Slot;  // a table and its parked requests

  Slot* find(const std::string& table);
  std::string unknown_table(const std::string& name) const;
  void pump(Time now);
  // Answers parked requests due at `now` (all of them: nullopt) with not_ready.
  void expire_parked(std::optional<Time> now);
  enum class Try { done, wait };
  Try try_insert(ParkedInsert& parked);
  bool try_read(Slot& slot, ParkedRead& parked, Time now);
  // Serves the parked reads of `slot` that can go, in arrival order, passing
  // those that cannot unless they hold the rest (holds_reads); true if any went.
  bool serve_reads(Slot& slot, Time now);
  bool holds_reads(const ParkedRead& parked, Time now) const;
  // A request parked on `slot` since `since` goes (or moves on) at `now`.
  static void waited(Slot& slot, Time since, Time now);
  void read(ParkedRead parked, const std::string& table, std::uint32_t wait_ms, Time now);
  CountReply settle(const std::string& table, const std::vector<LeaseRef>& leases, Time now, bool done);

  std::uint32_t shard_;
  std::uint32_t server_attempt_ = 0;
  EngineLimits limits_;
  ItemStore store_;
  std::vector<std::unique_ptr<Slot>> tables_;
  std::uint64_t next_counter_ = 1;
  std::string checkpoint_path_;
  std::unique_ptr<detail::InsertMemory> inserts_;
};

}  // namespace slipway::replay
