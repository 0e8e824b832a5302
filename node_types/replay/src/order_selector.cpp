// The Fifo and Lifo selectors: items in key order (keys grow with insertion).
#include "selectors.hpp"

namespace slipway::replay::detail {

void OrderSelector::insert(Key key, double) {
  if (!keys_.insert(key).second) duplicate_key(key);
}

void OrderSelector::update(Key key, double) {
  if (!keys_.contains(key)) missing_key(key);
}

void OrderSelector::remove(Key key) {
  if (keys_.erase(key) == 0) missing_key(key);
}

Selection OrderSelector::select(Rng&) const {
  return {lifo_ ? *keys_.rbegin() : *keys_.begin(), 1.0};
}

}  // namespace slipway::replay::detail
