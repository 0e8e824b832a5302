// Bounded memories of the engine: completed inserts by (client, seq), and
// the highest attempt of each (node, replica).
#include "insert_memory.hpp"

#include <string>

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

bool AttemptMemory::heard(const std::string& node, std::uint32_t replica,
                                                  std::uint32_t attempt) {
  std::string pair = node;
  pair.push_back('\0');
  pair += std::to_string(replica);
  const auto found = pairs_.find(pair);
  if (found == pairs_.end()) {
    lru_.push_front(pair);
    pairs_.emplace(std::move(pair), Entry{lru_.begin(), attempt});
    if (pairs_.size() > max_pairs_) {
      pairs_.erase(lru_.back());
      lru_.pop_back();
    }
    return attempt > 0;
  }
  lru_.splice(lru_.begin(), lru_, found->second.position);
  if (attempt <= found->second.attempt) return false;
  found->second.attempt = attempt;
  return true;
}

}  // namespace slipway::replay::detail
