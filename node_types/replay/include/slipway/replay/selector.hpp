// Item selectors (Reverb's item_selectors): which item a table samples or
// evicts next. Uniform (O(1)), Fifo and Lifo (key order: keys grow with
// insertion), MaxHeap and MinHeap (indexed binary heaps, O(log n), ties to
// the lower key, i.e. the older item), Prioritized(exponent) (a sum tree over
// priority^exponent, O(log n); all weights zero: uniform).
//
// Contract: insert() takes a key not present, update() and remove() a key
// present (the table keeps that invariant; violating it is a logic error
// reported by std::logic_error). select() needs size() > 0 and returns the
// key and the probability that this draw picks it. Priorities are finite;
// for Prioritized they are >= 0 (the table checks before calling).
#pragma once

#include <cstddef>
#include <memory>
#include <random>

#include "slipway/replay/types.hpp"

namespace slipway::replay {

struct SelectorSpec {
  SelectorKind kind = SelectorKind::uniform;
  double exponent = 1.0;  // Prioritized only
};

struct Selection {
  Key key = 0;
  double probability = 0.0;
};

using Rng = std::mt19937_64;

class Selector {
 public:
  virtual ~Selector() = default;
  virtual void insert(Key key, double priority) = 0;
  virtual void update(Key key, double priority) = 0;
  virtual void remove(Key key) = 0;
  virtual Selection select(Rng& rng) const = 0;
  virtual std::size_t size() const = 0;
  virtual void clear() = 0;
};

std::unique_ptr<Selector> make_selector(const SelectorSpec& spec);

}  // namespace slipway::replay
