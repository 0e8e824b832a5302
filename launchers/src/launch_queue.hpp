// LaunchQueue: the units the launcher was told to start that cannot start
// yet: those waiting for descriptors (descriptor_budget.hpp), in launch
// order, and those waiting for a host (a satellite job, WaitForHost in
// launcher_loop.hpp). I/O-free.
//
// Contract:
// - admit(units, attempt): the units that may start now, in order; the
//   others are queued behind any already queued (nothing overtakes the
//   queue), and the budget's line about them is given once (refusal()).
// - next_batch(): the queued units at the front that fit now, all of one
//   attempt (taken off the queue, their descriptors charged), with that
//   attempt; empty when the front does not fit.
// - release(unit): a unit that ran (or failed to start) gives its
//   descriptors back. drop(unit): a unit not yet started is no longer
//   queued nor waiting; false when it was neither.
// - wait_for_host(unit, attempt) parks a unit (its descriptors released);
//   host_found(unit) queues it again (it starts with the next batch);
//   host_not_found(unit) forgets it. Both say whether it was waiting.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "slipway/launch/descriptor_budget.hpp"

namespace slipway::launch {

class LaunchQueue {
 public:
  // cost(unit): descriptors a running unit holds (empty: not counted).
  LaunchQueue(DescriptorBudget budget, std::function<std::size_t(std::size_t unit)> cost);

  std::vector<std::size_t> admit(const std::vector<std::size_t>& units, int attempt);
  // The line that says how many units run at a time, once, after a unit
  // was queued for want of descriptors.
  std::optional<std::string> refusal();
  std::optional<std::pair<std::vector<std::size_t>, int>> next_batch();
  void release(std::size_t unit) { budget_.release(unit); }
  bool drop(std::size_t unit);

  void wait_for_host(std::size_t unit, int attempt);
  bool waiting_for_host(std::size_t unit) const { return waiting_for_host_.count(unit) != 0; }
  bool host_found(std::size_t unit);
  bool host_not_found(std::size_t unit) { return waiting_for_host_.erase(unit) != 0; }

 private:
  struct Queued {
    std::size_t unit;
    int attempt;
  };
  std::size_t cost_of(std::size_t unit) const { return cost_ ? cost_(unit) : 0; }

  DescriptorBudget budget_;
  std::function<std::size_t(std::size_t)> cost_;
  std::deque<Queued> queued_;
  std::map<std::size_t, int> waiting_for_host_;  // unit -> its attempt
  std::optional<std::size_t> refused_cost_;      // the cost of the first unit queued since refusal()
};

}  // namespace slipway::launch
