// A sum tree over non-negative weights (the Prioritized selector's index):
// set a weight and find the slot that a point in [0, total) falls in, both
// O(log n). Every inner node is recomputed from its two children on each
// change, so rounding does not accumulate over updates.
//
// Contract: weights are >= 0 and at most kMaxWeight (std::invalid_argument
// otherwise), so no sum overflows: a shard holds fewer than 2^48 items
// (its keys), and 2^48 * 1e290 < DBL_MAX. find() needs total() > 0 and
// returns a slot whose weight is > 0.
#pragma once

#include <cstddef>
#include <vector>

namespace slipway::replay {

class SumTree {
 public:
  static constexpr double kMaxWeight = 1e290;

  std::size_t size() const noexcept { return size_; }
  double total() const noexcept { return nodes_.empty() ? 0.0 : nodes_[1]; }
  double weight(std::size_t slot) const { return nodes_.at(capacity_ + slot); }

  // Appends a slot holding `weight`; returns its index (== old size()).
  std::size_t push_back(double weight);
  void set(std::size_t slot, double weight);
  // Drops the last slot.
  void pop_back();
  // The slot s with prefix(s) <= point < prefix(s) + weight(s); points past
  // the total (rounding) land on the last slot of positive weight.
  std::size_t find(double point) const;
  void clear();

 private:
  void grow();
  std::size_t capacity_ = 0;  // leaves; a power of two
  std::size_t size_ = 0;
  std::vector<double> nodes_;  // 1-based heap layout; leaf i at capacity_ + i
};

}  // namespace slipway::replay
