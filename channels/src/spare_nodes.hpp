// Nodes of a node-based container (std::map, std::unordered_map/set) kept
// after their element left, so that the next insert reuses one instead of
// allocating: the caller-side tables a call passes through (its call, its
// id in flight, its timer) cost no allocation per call.
//
// Contract: keep() takes a node whose value the caller has already
// cleared (what it held is released by then); at most kMax are kept, the
// rest freed. Not thread-safe: each pool belongs to its container's owner.
#pragma once

#include <cstddef>
#include <vector>

namespace slipway::channels::detail {

template <typename Container, std::size_t kMax = 16>
class SpareNodes {
 public:
  using Node = typename Container::node_type;
  // A kept node, or an empty one when there is none.
  Node take() {
    if (nodes_.empty()) return Node();
    Node node = std::move(nodes_.back());
    nodes_.pop_back();
    return node;
  }
  void keep(Node&& node) {
    if (!node.empty() && nodes_.size() < kMax) nodes_.push_back(std::move(node));
  }

 private:
  std::vector<Node> nodes_;
};

}  // namespace slipway::channels::detail
