// Selectors: orders (Fifo, Lifo, heaps), probabilities (Uniform,
// Prioritized, against their formulas over many draws) and the sum tree.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "slipway/replay/selector.hpp"
#include "slipway/replay/sum_tree.hpp"

using namespace slipway::replay;

namespace {
std::map<Key, double> frequencies(Selector& selector, int draws) {
  Rng rng(7);
  std::map<Key, double> seen;
  for (int i = 0; i < draws; ++i) seen[selector.select(rng).key] += 1.0 / draws;
  return seen;
}
}  // namespace

TEST_CASE("fifo and lifo select in key order - removals respected") {
  auto fifo = make_selector({SelectorKind::fifo, 1.0});
  auto lifo = make_selector({SelectorKind::lifo, 1.0});
  Rng rng(1);
  for (Key key : {5, 3, 9, 7}) {
    fifo->insert(key, 0.0);
    lifo->insert(key, 0.0);
  }
  CHECK(fifo->select(rng).key == 3);
  CHECK(lifo->select(rng).key == 9);
  CHECK(fifo->select(rng).probability == 1.0);
  fifo->remove(3);
  lifo->remove(9);
  CHECK(fifo->select(rng).key == 5);
  CHECK(lifo->select(rng).key == 7);
  CHECK_THROWS_AS(fifo->remove(3), std::logic_error);
  CHECK_THROWS_AS(fifo->insert(5, 1.0), std::logic_error);
}

TEST_CASE("fifo and lifo agree with an ordered set over random inserts, removals and re-inserts") {
  auto fifo = make_selector({SelectorKind::fifo, 1.0});
  auto lifo = make_selector({SelectorKind::lifo, 1.0});
  std::set<Key> model;
  std::mt19937_64 random(11);
  Rng rng(1);
  Key next = 1000;
  for (int step = 0; step < 20000; ++step) {
    const auto roll = random() % 10;
    if (roll < 5 || model.empty()) {
      // Mostly growing keys; now and then one below the largest (a restore).
      const Key key = roll == 0 ? random() % next : next++;
      if (model.count(key) != 0) {
        CHECK_THROWS_AS(fifo->insert(key, 0.0), std::logic_error);
        continue;
      }
      fifo->insert(key, 0.0);
      lifo->insert(key, 0.0);
      model.insert(key);
    } else {
      // Remove the first, the last, or one in the middle.
      auto it = model.begin();
      if (roll == 6) it = std::prev(model.end());
      if (roll >= 7) std::advance(it, static_cast<long>(random() % model.size()));
      fifo->remove(*it);
      lifo->remove(*it);
      CHECK_THROWS_AS(fifo->update(*it, 1.0), std::logic_error);
      model.erase(it);
    }
    REQUIRE(fifo->size() == model.size());
    if (!model.empty()) {
      REQUIRE(fifo->select(rng).key == *model.begin());
      REQUIRE(lifo->select(rng).key == *model.rbegin());
    }
  }
  fifo->clear();
  CHECK(fifo->size() == 0);
  fifo->insert(5, 0.0);
  CHECK(fifo->select(rng).key == 5);
}

TEST_CASE("max and min heaps follow priorities - updates and removals - ties to the lower key") {
  auto max = make_selector({SelectorKind::max_heap, 1.0});
  auto min = make_selector({SelectorKind::min_heap, 1.0});
  Rng rng(1);
  const std::vector<std::pair<Key, double>> items{{1, 0.5}, {2, 3.0}, {3, -1.0}, {4, 3.0}, {5, 2.0}};
  for (const auto& [key, priority] : items) {
    max->insert(key, priority);
    min->insert(key, priority);
  }
  CHECK(max->select(rng).key == 2);  // 2 and 4 tie at 3.0: the lower key
  CHECK(min->select(rng).key == 3);
  max->update(2, 0.0);
  CHECK(max->select(rng).key == 4);
  min->update(3, 10.0);
  CHECK(min->select(rng).key == 1);
  max->remove(4);
  CHECK(max->select(rng).key == 5);
  // Drain the max heap: priorities come out in non-increasing order.
  std::vector<Key> order;
  while (max->size() > 0) {
    const Key key = max->select(rng).key;
    order.push_back(key);
    max->remove(key);
  }
  CHECK(order == std::vector<Key>{5, 1, 2, 3});  // 2.0, 0.5, 0.0, -1.0
}

TEST_CASE("an indexed heap stays ordered through many random operations") {
  auto heap = make_selector({SelectorKind::min_heap, 1.0});
  Rng rng(3);
  std::map<Key, double> model;
  std::uniform_real_distribution<double> priority(-100.0, 100.0);
  for (Key key = 1; key <= 2000; ++key) {
    const double p = priority(rng);
    heap->insert(key, p);
    model[key] = p;
    if (key % 3 == 0) {
      const Key victim = key - 1;
      heap->remove(victim);
      model.erase(victim);
    }
    if (key % 5 == 0) {
      const double q = priority(rng);
      heap->update(key, q);
      model[key] = q;
    }
    auto best = model.begin();
    for (auto it = model.begin(); it != model.end(); ++it) {
      if (it->second < best->second) best = it;
    }
    REQUIRE(heap->select(rng).key == best->first);
  }
  CHECK(heap->size() == model.size());
}

TEST_CASE("uniform draws every item with probability 1/n - O1 removal keeps the set") {
  auto uniform = make_selector({SelectorKind::uniform, 1.0});
  for (Key key = 1; key <= 6; ++key) uniform->insert(key, 0.0);
  uniform->remove(2);
  Rng rng(1);
  CHECK(uniform->select(rng).probability == Approx(1.0 / 5));
  const auto seen = frequencies(*uniform, 50000);
  CHECK(seen.size() == 5);
  CHECK_FALSE(seen.contains(2));
  for (const auto& [key, share] : seen) CHECK(share == Approx(0.2).margin(0.01));
}

TEST_CASE("prioritized draws p^e / sum p^e and reports that probability") {
  auto prioritized = make_selector({SelectorKind::prioritized, 0.5});
  const std::map<Key, double> priorities{{1, 1.0}, {2, 4.0}, {3, 9.0}, {4, 0.0}};
  for (const auto& [key, p] : priorities) prioritized->insert(key, p);
  // weights 1, 2, 3, 0 (sum 6)
  const auto seen = frequencies(*prioritized, 60000);
  CHECK(seen.at(1) == Approx(1.0 / 6).margin(0.01));
  CHECK(seen.at(2) == Approx(2.0 / 6).margin(0.01));
  CHECK(seen.at(3) == Approx(3.0 / 6).margin(0.01));
  CHECK_FALSE(seen.contains(4));
  Rng rng(2);
  for (int i = 0; i < 50; ++i) {
    const Selection s = prioritized->select(rng);
    CHECK(s.probability == Approx(std::sqrt(priorities.at(s.key)) / 6.0));
  }
  prioritized->update(3, 0.0);
  prioritized->remove(1);
  const auto after = frequencies(*prioritized, 1000);
  CHECK(after.size() == 1);
  CHECK(after.contains(2));
}

TEST_CASE("prioritized with every priority zero draws uniformly") {
  auto prioritized = make_selector({SelectorKind::prioritized, 1.0});
  for (Key key = 1; key <= 4; ++key) prioritized->insert(key, 0.0);
  Rng rng(1);
  CHECK(prioritized->select(rng).probability == Approx(0.25));
  CHECK(frequencies(*prioritized, 4000).size() == 4);
}

TEST_CASE("sum tree: totals - finds and growth") {
  SumTree tree;
  for (int i = 0; i < 100; ++i) tree.push_back(1.0);
  CHECK(tree.size() == 100);
  CHECK(tree.total() == Approx(100.0));
  CHECK(tree.find(0.0) == 0);
  CHECK(tree.find(41.5) == 41);
  CHECK(tree.find(99.999) == 99);
  CHECK(tree.find(1000.0) == 99);  // past the total: the last slot with weight
  tree.set(99, 0.0);
  CHECK(tree.find(1000.0) == 98);
  tree.set(10, 5.0);
  CHECK(tree.total() == Approx(103.0));
  CHECK(tree.find(10.0) == 10);
  CHECK(tree.find(14.99) == 10);
  CHECK(tree.find(15.0) == 11);
  tree.pop_back();
  CHECK(tree.size() == 99);
  CHECK(tree.total() == Approx(103.0));
  CHECK_THROWS_AS(tree.set(0, -1.0), std::invalid_argument);
  CHECK_THROWS_AS(tree.push_back(std::nan("")), std::invalid_argument);
  CHECK_THROWS_AS(tree.push_back(1e308), std::invalid_argument);  // two would overflow the sum
  CHECK_THROWS_AS(tree.set(0, std::numeric_limits<double>::infinity()), std::invalid_argument);
  SumTree empty;
  CHECK_THROWS_AS(empty.find(0.0), std::logic_error);
}

TEST_CASE("sum tree: the largest weights, many of them, keep a finite total") {
  SumTree tree;
  for (int i = 0; i < 1000; ++i) tree.push_back(SumTree::kMaxWeight);
  CHECK(std::isfinite(tree.total()));
  CHECK(tree.find(tree.total() * 0.5004) == 500);
}
