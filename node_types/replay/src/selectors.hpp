// The selector implementations behind make_selector (internal).
#pragma once

#include <set>
#include <unordered_map>
#include <vector>

#include "slipway/replay/selector.hpp"
#include "slipway/replay/sum_tree.hpp"

namespace slipway::replay::detail {

// Dense vector of keys plus each key's index: O(1) everything.
class UniformSelector final : public Selector {
 public:
  void insert(Key key, double priority) override;
  void update(Key key, double priority) override;
  void remove(Key key) override;
  Selection select(Rng& rng) const override;
  std::size_t size() const override { return keys_.size(); }
  void clear() override;

 private:
  std::vector<Key> keys_;
  std::unordered_map<Key, std::size_t> index_;
};

// Key order (keys grow with insertion): Fifo picks the smallest, Lifo the largest.
class OrderSelector final : public Selector {
 public:
  explicit OrderSelector(bool lifo) : lifo_(lifo) {}
  void insert(Key key, double priority) override;
  void update(Key key, double priority) override;
  void remove(Key key) override;
  Selection select(Rng& rng) const override;
  std::size_t size() const override { return keys_.size(); }
  void clear() override { keys_.clear(); }

 private:
  bool lifo_;
  std::set<Key> keys_;
};

// Indexed binary heap; the top is the highest (max) or lowest (min)
// priority, ties to the lower key.
class HeapSelector final : public Selector {
 public:
  explicit HeapSelector(bool max) : max_(max) {}
  void insert(Key key, double priority) override;
  void update(Key key, double priority) override;
  void remove(Key key) override;
  Selection select(Rng& rng) const override;
  std::size_t size() const override { return heap_.size(); }
  void clear() override;

 private:
  struct Entry {
    double priority;
    Key key;
  };
  bool before(const Entry& a, const Entry& b) const;
  void place(std::size_t at, Entry entry);
  void sift_up(std::size_t at);
  void sift_down(std::size_t at);
  bool max_;
  std::vector<Entry> heap_;
  std::unordered_map<Key, std::size_t> index_;
};

// Sum tree over priority^exponent.
class PrioritizedSelector final : public Selector {
 public:
  explicit PrioritizedSelector(double exponent) : exponent_(exponent) {}
  void insert(Key key, double priority) override;
  void update(Key key, double priority) override;
  void remove(Key key) override;
  Selection select(Rng& rng) const override;
  std::size_t size() const override { return keys_.size(); }
  void clear() override;

 private:
  double weight(double priority) const;
  double exponent_;
  SumTree tree_;
  std::vector<Key> keys_;  // slot -> key
  std::unordered_map<Key, std::size_t> index_;
};

[[noreturn]] void missing_key(Key key);
[[noreturn]] void duplicate_key(Key key);

}  // namespace slipway::replay::detail
