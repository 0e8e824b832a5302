// The selector implementations behind make_selector (internal).
#pragma once

#include <deque>
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
// The keys sit in ascending order in a deque, each with a live flag: an
// insert is an append (a key below the largest, as a restore may bring, is
// put in its place), a removal marks its key dead (binary search) and trims
// dead keys off both ends, so the ends are live and select() is O(1). Dead
// keys left between live ones are compacted away once they outnumber them.
// No allocation per key, where a std::set made one per insert and a
// rebalance per removal (a tenth of a replay shard's time under load).
class OrderSelector final : public Selector {
 public:
  explicit OrderSelector(bool lifo) : lifo_(lifo) {}
  void insert(Key key, double priority) override;
  void update(Key key, double priority) override;
  void remove(Key key) override;
  Selection select(Rng& rng) const override;
  std::size_t size() const override { return live_; }
  void clear() override;

 private:
  struct Entry {
    Key key;
    bool live;
  };
  std::deque<Entry>::iterator lower(Key key);  // the first entry not below key
  std::size_t find(Key key);                   // index of the key's entry (live or not), or keys_.size()
  bool alive(std::size_t index) const { return index < keys_.size() && keys_[index].live; }
  void trim();
  bool lifo_;
  std::deque<Entry> keys_;
  std::size_t live_ = 0;
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
