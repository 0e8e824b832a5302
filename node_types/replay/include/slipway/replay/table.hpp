// One table of a shard: its items (keys to priority, times sampled and the
// shared data), a sampler and a remover over the same items, Reverb's rate
// limiter, and for `work` tables the leases of items handed out.
//
// Contract: the table only keeps its invariants; whether a caller may go
// (parking, deadlines) is the engine's. insert() needs can_insert(1) and a
// key not present; at max_size it first evicts the remover's choice
// (counted as a delete). sample_one() needs size() > 0 (and is refused on
// work tables); an item reaching max_times_sampled is removed (a delete).
// Work tables: a leased item leaves the sampler until it is acked (removed),
// nacked or its lease expires; it then goes back in key order (the front of
// a FIFO queue). Each lease has its token: nack needs the current lease's,
// ack the token of one of the item's last kTokensKept leases (a holder whose
// lease expired may still report the work done). totals() counts the items
// inserted and those sampled (a work table's: leased) since the table was
// made; neither reset() nor restore_item() changes them (stats.hpp). Not
// thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "slipway/replay/item_store.hpp"
#include "slipway/replay/rate_limiter.hpp"
#include "slipway/replay/selector.hpp"
#include "slipway/replay/types.hpp"

namespace slipway::replay {

struct TableConfig {
  std::string name;
  TableKind kind = TableKind::table;
  SelectorSpec sampler{SelectorKind::uniform, 1.0};
  SelectorSpec remover{SelectorKind::fifo, 1.0};
  std::uint64_t max_size = 1000000;
  std::uint32_t max_times_sampled = 0;  // 0: unlimited
  RateLimiterConfig rate_limiter = RateLimiterConfig::min_size(1);
  std::chrono::milliseconds lease{60000};  // work tables
};

struct Sampled {
  Key key = 0;
  double priority = 0.0;
  double probability = 0.0;
  std::uint64_t table_size = 0;
  std::uint32_t times_sampled = 0;
  ItemStore::Data data;
};

struct TableTotals {
  std::uint64_t inserted = 0;
  std::uint64_t sampled = 0;  // work tables: leased
};

struct Leased {
  Key key = 0;
  std::uint32_t times_leased = 0;
  ItemStore::Data data;
  LeaseToken token{};
};

class Table {
 public:
  // Throws std::invalid_argument naming the table and the key at fault.
  // `seed` seeds the table's own random draws (sampler, remover).
  explicit Table(TableConfig config, std::uint64_t seed = 0x5eed);

  const TableConfig& config() const noexcept { return config_; }
  const std::string& name() const noexcept { return config_.name; }
  bool is_work() const noexcept { return config_.kind == TableKind::work; }
  // Whether items leave it in the order they came (a FIFO remover, and a
  // FIFO sampler where sampling removes them), but for deletes and resets:
  // the items of one insert request may then share its buffer without
  // holding much more memory than their own (item_store.hpp).
  bool removes_in_order() const noexcept {
    return !is_work() && config_.remover.kind == SelectorKind::fifo &&
           (config_.max_times_sampled == 0 || config_.sampler.kind == SelectorKind::fifo);
  }
  std::size_t size() const noexcept { return items_.size(); }
  std::size_t leased() const noexcept { return leases_.size(); }
  std::size_t queued() const noexcept { return sampler_->size(); }
  bool contains(Key key) const { return items_.contains(key); }

  // Empty when `priority` suits this table's selectors, else why not.
  std::optional<std::string> check_priority(double priority) const;

  bool can_insert(std::int64_t n) const;
  void insert(Key key, double priority, ItemStore::Data data);

  // How many of n items a sample may take now (0: it must wait).
  std::int64_t sample_count(std::int64_t n) const;
  Sampled sample_one();

  bool update(Key key, double priority);
  bool remove(Key key);
  void reset();

  // Work tables.
  static constexpr std::size_t kTokensKept = 8;
  Leased lease_one(const LeaseToken& token, Time expires);
  bool ack(const LeaseRef& lease);
  bool nack(const LeaseRef& lease);
  std::size_t expire(Time now);
  std::optional<Time> next_expiry() const;

  // Checkpoints: items in key order, and restoring one (no limiter change;
  // a work item comes back queued, `times` is its times_leased).
  void for_each_item(const std::function<void(Key, double, std::uint32_t, const ItemStore::Data&)>& fn) const;
  void restore_item(Key key, double priority, std::uint32_t times, ItemStore::Data data);
  RateLimiter& limiter() noexcept { return limiter_; }
  const RateLimiter& limiter() const noexcept { return limiter_; }
  const TableTotals& totals() const noexcept { return totals_; }

 private:
  struct Item {
    double priority = 0.0;
    std::uint32_t times = 0;  // times sampled (work: times leased)
    ItemStore::Data data;
  };
  struct Lease {
    LeaseToken token;
    Time expires;
  };
  void erase(Key key);
  void end_lease(Key key, bool requeue);

  TableConfig config_;
  std::unique_ptr<Selector> sampler_;
  std::unique_ptr<Selector> remover_;
  RateLimiter limiter_;
  TableTotals totals_;
  Rng rng_;
  std::unordered_map<Key, Item> items_;
  std::unordered_map<Key, Lease> leases_;
  std::unordered_map<Key, std::vector<LeaseToken>> tokens_;  // per leased item, the last kTokensKept
  std::set<std::pair<Time, Key>> expiries_;
};

}  // namespace slipway::replay
