// The Uniform selector: a dense vector of keys and each key's index.
#include "selectors.hpp"

namespace slipway::replay::detail {

void UniformSelector::insert(Key key, double) {
  if (!index_.emplace(key, keys_.size()).second) duplicate_key(key);
  keys_.push_back(key);
}

void UniformSelector::update(Key key, double) {
  if (!index_.contains(key)) missing_key(key);
}

void UniformSelector::remove(Key key) {
  const auto found = index_.find(key);
  if (found == index_.end()) missing_key(key);
  const std::size_t at = found->second;
  index_.erase(found);
  if (at + 1 != keys_.size()) {
    keys_[at] = keys_.back();
    index_[keys_[at]] = at;
  }
  keys_.pop_back();
}

Selection UniformSelector::select(Rng& rng) const {
  std::uniform_int_distribution<std::size_t> pick(0, keys_.size() - 1);
  return {keys_[pick(rng)], 1.0 / static_cast<double>(keys_.size())};
}

void UniformSelector::clear() {
  keys_.clear();
  index_.clear();
}

}  // namespace slipway::replay::detail
