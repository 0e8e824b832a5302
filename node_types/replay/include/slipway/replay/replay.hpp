// C++ over replay.h, header-only, for programs built against the installed
// libslipway-courier.so (libslipway-dev: find_package(slipway), target
// slipway::courier): a replay node's client with its items as values.
// Programs inside this tree use the C++ client (client.hpp).
//
// Contract: as replay.h's; every failure throws slipway::courier::Error
// (courier.hpp) with the status and the node's message. A ReplayClient must
// be destroyed before its Endpoint. Leases are acked or nacked as the batch
// lease() returned.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slipway/channels/courier.hpp"
#include "slipway/replay/replay.h"

namespace slipway::courier {

struct ReplayItem {
  std::uint64_t key = 0;
  std::string data;
  double priority = 0.0;        // sample: its priority
  double probability = 0.0;     // sample: the probability it was drawn with
  std::uint32_t times = 0;      // sample: times sampled; lease: times leased
};

// The items of one lease() call, to ack or nack together.
class Leases {
 public:
  explicit Leases(slipway_replay_items* items) : items_(items, &slipway_replay_items_free) {}
  std::vector<ReplayItem> items() const;
  const slipway_replay_items* get() const noexcept { return items_.get(); }

 private:
  std::unique_ptr<slipway_replay_items, decltype(&slipway_replay_items_free)> items_;
};

inline std::vector<ReplayItem> items_of(const slipway_replay_items* items) {
  std::vector<ReplayItem> out(slipway_replay_items_count(items));
  for (std::size_t i = 0; i < out.size(); ++i) {
    slipway_replay_item item;
    slipway_replay_items_get(items, i, &item);
    out[i] = {item.key, std::string(static_cast<const char*>(item.data), item.size), item.priority,
              item.probability, item.times_sampled};
  }
  return out;
}

inline std::vector<ReplayItem> Leases::items() const { return items_of(items_.get()); }

class ReplayClient {
 public:
  // Resolves every shard of the replay node `node` through `endpoint`.
  ReplayClient(Endpoint& endpoint, const std::string& node) : c_(nullptr, &slipway_replay_client_destroy) {
    slipway_error error;
    c_.reset(slipway_replay_client_create(endpoint.get(), node.c_str(), &error));
    if (!c_) throw Error(error);
  }
  std::size_t shards() const { return slipway_replay_shards(c_.get()); }

  // timeout_ms < 0: the client's default (60 s).
  std::uint64_t insert(std::string_view data, const std::map<std::string, double>& priorities,
                       std::int64_t timeout_ms = -1) {
    std::vector<const char*> tables;
    std::vector<double> values;
    for (const auto& [table, priority] : priorities) {
      tables.push_back(table.c_str());
      values.push_back(priority);
    }
    slipway_error error;
    std::uint64_t key = 0;
    check(slipway_replay_insert(c_.get(), data.data(), data.size(), tables.data(), values.data(), tables.size(),
                                timeout_ms, &key, &error),
          error);
    return key;
  }
  std::vector<ReplayItem> sample(const std::string& table, std::uint32_t n, std::int64_t timeout_ms = -1) {
    slipway_error error;
    slipway_replay_items* items = nullptr;
    check(slipway_replay_sample(c_.get(), table.c_str(), n, timeout_ms, &items, &error), error);
    const std::unique_ptr<slipway_replay_items, decltype(&slipway_replay_items_free)> owned(
        items, &slipway_replay_items_free);
    return items_of(items);
  }
  void update_priorities(const std::string& table, const std::vector<std::pair<std::uint64_t, double>>& updates) {
    std::vector<std::uint64_t> keys;
    std::vector<double> priorities;
    for (const auto& [key, priority] : updates) {
      keys.push_back(key);
      priorities.push_back(priority);
    }
    slipway_error error;
    check(slipway_replay_update_priorities(c_.get(), table.c_str(), keys.data(), priorities.data(), keys.size(),
                                           &error),
          error);
  }
  void remove(const std::string& table, const std::vector<std::uint64_t>& keys) {
    slipway_error error;
    check(slipway_replay_remove(c_.get(), table.c_str(), keys.data(), keys.size(), &error), error);
  }
  void reset(const std::string& table) {
    slipway_error error;
    check(slipway_replay_reset(c_.get(), table.c_str(), &error), error);
  }
  Leases lease(const std::string& table, std::uint32_t n, std::int64_t timeout_ms = -1) {
    slipway_error error;
    slipway_replay_items* items = nullptr;
    check(slipway_replay_lease(c_.get(), table.c_str(), n, timeout_ms, &items, &error), error);
    return Leases(items);
  }
  std::uint32_t ack(const std::string& table, const Leases& leases) {
    slipway_error error;
    std::uint32_t counted = 0;
    check(slipway_replay_ack(c_.get(), table.c_str(), leases.get(), &counted, &error), error);
    return counted;
  }
  std::uint32_t nack(const std::string& table, const Leases& leases) {
    slipway_error error;
    std::uint32_t counted = 0;
    check(slipway_replay_nack(c_.get(), table.c_str(), leases.get(), &counted, &error), error);
    return counted;
  }

 private:
  std::unique_ptr<slipway_replay_client, decltype(&slipway_replay_client_destroy)> c_;
};

}  // namespace slipway::courier
