// The Fifo and Lifo selectors: items in key order (keys grow with insertion).
#include <algorithm>

#include "selectors.hpp"

namespace slipway::replay::detail {

std::deque<OrderSelector::Entry>::iterator OrderSelector::lower(Key key) {
  return std::lower_bound(keys_.begin(), keys_.end(), key, [](const Entry& entry, Key k) { return entry.key < k; });
}

std::size_t OrderSelector::find(Key key) {
  // Most removals take an end (the remover's or the sampler's pick).
  if (!keys_.empty() && keys_.front().key == key) return 0;
  if (!keys_.empty() && keys_.back().key == key) return keys_.size() - 1;
  const auto it = lower(key);
  return it != keys_.end() && it->key == key ? static_cast<std::size_t>(it - keys_.begin()) : keys_.size();
}

void OrderSelector::insert(Key key, double) {
  if (keys_.empty() || key > keys_.back().key) {
    keys_.push_back({key, true});
  } else {
    const auto it = lower(key);
    if (it != keys_.end() && it->key == key) {
      if (it->live) duplicate_key(key);
      it->live = true;
    } else {
      keys_.insert(it, {key, true});
    }
  }
  ++live_;
}

void OrderSelector::update(Key key, double) {
  if (!alive(find(key))) missing_key(key);
}

void OrderSelector::remove(Key key) {
  const std::size_t index = find(key);
  if (!alive(index)) missing_key(key);
  keys_[index].live = false;
  --live_;
  trim();
  if (keys_.size() > 2 * live_ + 64) {
    std::erase_if(keys_, [](const Entry& entry) { return !entry.live; });
  }
}

void OrderSelector::trim() {
  while (!keys_.empty() && !keys_.front().live) keys_.pop_front();
  while (!keys_.empty() && !keys_.back().live) keys_.pop_back();
}

void OrderSelector::clear() {
  keys_.clear();
  live_ = 0;
}

Selection OrderSelector::select(Rng&) const {
  return {lifo_ ? keys_.back().key : keys_.front().key, 1.0};
}

}  // namespace slipway::replay::detail
