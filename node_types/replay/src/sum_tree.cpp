// The sum tree behind the Prioritized selector.
#include "slipway/replay/sum_tree.hpp"

#include <cmath>
#include <stdexcept>

namespace slipway::replay {

namespace {
void check_weight(double weight) {
  if (!(weight >= 0.0 && weight <= SumTree::kMaxWeight)) {
    throw std::invalid_argument("sum tree weights must be numbers from 0 to 1e290");
  }
}
}  // namespace

void SumTree::grow() {
  const std::size_t capacity = capacity_ == 0 ? 16 : capacity_ * 2;
  std::vector<double> nodes(2 * capacity, 0.0);
  for (std::size_t i = 0; i < size_; ++i) nodes[capacity + i] = nodes_[capacity_ + i];
  for (std::size_t node = capacity - 1; node >= 1; --node) {
    nodes[node] = nodes[2 * node] + nodes[2 * node + 1];
  }
  nodes_ = std::move(nodes);
  capacity_ = capacity;
}

std::size_t SumTree::push_back(double weight) {
  check_weight(weight);
  if (size_ == capacity_) grow();
  const std::size_t slot = size_++;
  set(slot, weight);
  return slot;
}

void SumTree::set(std::size_t slot, double weight) {
  check_weight(weight);
  if (slot >= size_) throw std::out_of_range("sum tree slot out of range");
  std::size_t node = capacity_ + slot;
  nodes_[node] = weight;
  for (node /= 2; node >= 1; node /= 2) nodes_[node] = nodes_[2 * node] + nodes_[2 * node + 1];
}

void SumTree::pop_back() {
  if (size_ == 0) throw std::out_of_range("pop_back on an empty sum tree");
  set(size_ - 1, 0.0);
  --size_;
}

std::size_t SumTree::find(double point) const {
  if (!(total() > 0.0)) throw std::logic_error("find in a sum tree of total 0");
  std::size_t node = 1;
  while (node < capacity_) {
    const std::size_t left = 2 * node;
    // Go right only when the point is past the left sum and the right side
    // has weight: rounding can never end on a zero-weight leaf.
    if (point < nodes_[left] || !(nodes_[left + 1] > 0.0)) {
      node = left;
    } else {
      point -= nodes_[left];
      node = left + 1;
    }
  }
  return node - capacity_;
}

void SumTree::clear() {
  capacity_ = 0;
  size_ = 0;
  nodes_.clear();
}

}  // namespace slipway::replay
