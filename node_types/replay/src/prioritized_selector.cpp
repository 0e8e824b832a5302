// The Prioritized selector: P(i) = p_i^e / sum_j p_j^e over a sum tree
// (uniform while every weight is zero, as Reverb).
#include <cmath>

#include "selectors.hpp"

namespace slipway::replay::detail {

double PrioritizedSelector::weight(double priority) const { return std::pow(priority, exponent_); }

void PrioritizedSelector::insert(Key key, double priority) {
  if (index_.contains(key)) duplicate_key(key);
  tree_.push_back(weight(priority));  // throws before anything changed on a bad weight
  index_.emplace(key, keys_.size());
  keys_.push_back(key);
}

void PrioritizedSelector::update(Key key, double priority) {
  const auto found = index_.find(key);
  if (found == index_.end()) missing_key(key);
  tree_.set(found->second, weight(priority));
}

void PrioritizedSelector::remove(Key key) {
  const auto found = index_.find(key);
  if (found == index_.end()) missing_key(key);
  const std::size_t at = found->second;
  index_.erase(found);
  const std::size_t last = keys_.size() - 1;
  if (at != last) {
    keys_[at] = keys_[last];
    index_[keys_[at]] = at;
    tree_.set(at, tree_.weight(last));
  }
  keys_.pop_back();
  tree_.pop_back();
}

Selection PrioritizedSelector::select(Rng& rng) const {
  const double total = tree_.total();
  if (!(total > 0.0)) {
    std::uniform_int_distribution<std::size_t> pick(0, keys_.size() - 1);
    return {keys_[pick(rng)], 1.0 / static_cast<double>(keys_.size())};
  }
  std::uniform_real_distribution<double> point(0.0, total);
  const std::size_t slot = tree_.find(point(rng));
  return {keys_[slot], tree_.weight(slot) / total};
}

void PrioritizedSelector::clear() {
  tree_.clear();
  keys_.clear();
  index_.clear();
}

}  // namespace slipway::replay::detail
