// The MaxHeap and MinHeap selectors: an indexed binary heap.
#include "selectors.hpp"

namespace slipway::replay::detail {

bool HeapSelector::before(const Entry& a, const Entry& b) const {
  if (a.priority != b.priority) return max_ ? a.priority > b.priority : a.priority < b.priority;
  return a.key < b.key;
}

void HeapSelector::place(std::size_t at, Entry entry) {
  index_[entry.key] = at;
  heap_[at] = entry;
}

void HeapSelector::sift_up(std::size_t at) {
  const Entry entry = heap_[at];
  while (at > 0) {
    const std::size_t parent = (at - 1) / 2;
    if (!before(entry, heap_[parent])) break;
    place(at, heap_[parent]);
    at = parent;
  }
  place(at, entry);
}

void HeapSelector::sift_down(std::size_t at) {
  const Entry entry = heap_[at];
  const std::size_t n = heap_.size();
  while (true) {
    std::size_t best = at;
    Entry best_entry = entry;
    for (std::size_t child = 2 * at + 1; child <= 2 * at + 2 && child < n; ++child) {
      if (before(heap_[child], best_entry)) {
        best = child;
        best_entry = heap_[child];
      }
    }
    if (best == at) break;
    place(at, heap_[best]);
    at = best;
  }
  place(at, entry);
}

void HeapSelector::insert(Key key, double priority) {
  if (index_.contains(key)) duplicate_key(key);
  heap_.push_back({priority, key});
  index_[key] = heap_.size() - 1;
  sift_up(heap_.size() - 1);
}

void HeapSelector::update(Key key, double priority) {
  const auto found = index_.find(key);
  if (found == index_.end()) missing_key(key);
  const std::size_t at = found->second;
  heap_[at].priority = priority;
  sift_up(at);
  sift_down(index_[key]);
}

void HeapSelector::remove(Key key) {
  const auto found = index_.find(key);
  if (found == index_.end()) missing_key(key);
  const std::size_t at = found->second;
  index_.erase(found);
  const Entry last = heap_.back();
  heap_.pop_back();
  if (at == heap_.size()) return;
  place(at, last);
  sift_up(at);
  sift_down(index_[last.key]);
}

Selection HeapSelector::select(Rng&) const { return {heap_.front().key, 1.0}; }

void HeapSelector::clear() {
  heap_.clear();
  index_.clear();
}

}  // namespace slipway::replay::detail
