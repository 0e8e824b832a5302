// What the engine remembers of completed inserts for de-duplication: per
// client id its last inserts by seq with their keys, bounded in clients,
// inserts per client and keys in all (least recently used clients go first).
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "slipway/replay/types.hpp"

namespace slipway::replay::detail {

class InsertMemory {
 public:
  InsertMemory(std::size_t max_clients, std::size_t per_client, std::size_t max_keys)
      : max_clients_(max_clients), per_client_(per_client), max_keys_(max_keys) {}

  // The keys of the insert (client, seq) if it is remembered.
  std::optional<std::vector<Key>> find(std::uint64_t client, std::uint64_t seq);
  void remember(std::uint64_t client, std::uint64_t seq, const std::vector<Key>& keys);
  // Every remembered insert, least recently used client first, each
  // client's in seq order: remember() in this order rebuilds the memory.
  void for_each(const std::function<void(std::uint64_t client, std::uint64_t seq,
                                         const std::vector<Key>& keys)>& f) const;
  std::size_t clients() const noexcept { return clients_.size(); }
  std::size_t keys() const noexcept { return keys_; }

 private:
  struct Client {
    std::list<std::uint64_t>::iterator position;  // in lru_
    std::map<std::uint64_t, std::vector<Key>> inserts;
  };
  void forget_oldest();
  std::size_t max_clients_, per_client_, max_keys_;
  std::size_t keys_ = 0;
  std::list<std::uint64_t> lru_;  // most recently used first
  std::unordered_map<std::uint64_t, Client> clients_;
};

}  // namespace slipway::replay::detail
