// The engine's bounded memory of completed inserts by (client, seq).
#include "insert_memory.hpp"

namespace slipway::replay::detail {

std::optional<std::vector<Key>> InsertMemory::find(std::uint64_t client, std::uint64_t seq) {
  const auto found = clients_.find(client);
  if (found == clients_.end()) return std::nullopt;
  lru_.splice(lru_.begin(), lru_, found->second.position);
  const auto insert = found->second.inserts.find(seq);
  if (insert == found->second.inserts.end()) return std::nullopt;
  return insert->second;
}

void InsertMemory::for_each(const std::function<void(std::uint64_t, std::uint64_t,
                                                     const std::vector<Key>&)>& f) const {
  for (auto client = lru_.rbegin(); client != lru_.rend(); ++client) {
    for (const auto& [seq, keys] : clients_.at(*client).inserts) f(*client, seq, keys);
  }
}

void InsertMemory::forget_oldest() {
  const auto found = clients_.find(lru_.back());
  for (const auto& entry : found->second.inserts) keys_ -= entry.second.size();
  clients_.erase(found);
  lru_.pop_back();
}

void InsertMemory::remember(std::uint64_t client, std::uint64_t seq, const std::vector<Key>& keys) {
  if (keys.size() > max_keys_) return;
  auto found = clients_.find(client);
  if (found == clients_.end()) {
    lru_.push_front(client);
    found = clients_.emplace(client, Client{lru_.begin(), {}}).first;
  } else {
    lru_.splice(lru_.begin(), lru_, found->second.position);
  }
  auto& inserts = found->second.inserts;
  if (inserts.emplace(seq, keys).second) keys_ += keys.size();
  while (inserts.size() > per_client_) {
    keys_ -= inserts.begin()->second.size();
    inserts.erase(inserts.begin());
  }
  // Past the bounds, forget whole clients, least recently used first (never
  // the one just remembered: it is at the front).
  while (clients_.size() > max_clients_ || (keys_ > max_keys_ && clients_.size() > 1)) forget_oldest();
}

}  // namespace slipway::replay::detail
