// LaunchQueue: units waiting for descriptors or a host (see
// launch_queue.hpp).
#include "launch_queue.hpp"

#include <algorithm>

namespace slipway::launch {

LaunchQueue::LaunchQueue(DescriptorBudget budget, std::function<std::size_t(std::size_t)> cost)
    : budget_(std::move(budget)), cost_(std::move(cost)) {}

std::vector<std::size_t> LaunchQueue::admit(const std::vector<std::size_t>& units, int attempt) {
  std::vector<std::size_t> now;
  for (std::size_t unit : units) {
    if (queued_.empty() && budget_.take(unit, cost_of(unit))) {
      now.push_back(unit);
    } else {
      queued_.push_back({unit, attempt});
      if (!refused_cost_) refused_cost_ = cost_of(unit);
    }
  }
  return now;
}

std::optional<std::string> LaunchQueue::refusal() {
  if (!refused_cost_) return std::nullopt;
  const std::size_t cost = *refused_cost_;
  refused_cost_.reset();
  return budget_.first_refusal(cost);
}

std::optional<std::pair<std::vector<std::size_t>, int>> LaunchQueue::next_batch() {
  if (queued_.empty()) return std::nullopt;
  const int attempt = queued_.front().attempt;
  std::vector<std::size_t> now;
  while (!queued_.empty() && queued_.front().attempt == attempt &&
         budget_.take(queued_.front().unit, cost_of(queued_.front().unit))) {
    now.push_back(queued_.front().unit);
    queued_.pop_front();
  }
  if (now.empty()) return std::nullopt;
  return std::make_pair(std::move(now), attempt);
}

bool LaunchQueue::drop(std::size_t unit) {
  if (waiting_for_host_.erase(unit)) return true;
  auto it = std::find_if(queued_.begin(), queued_.end(), [unit](const Queued& q) { return q.unit == unit; });
  if (it == queued_.end()) return false;
  queued_.erase(it);
  return true;
}

void LaunchQueue::wait_for_host(std::size_t unit, int attempt) {
  budget_.release(unit);
  waiting_for_host_[unit] = attempt;
}

bool LaunchQueue::host_found(std::size_t unit) {
  auto it = waiting_for_host_.find(unit);
  if (it == waiting_for_host_.end()) return false;
  queued_.push_back({unit, it->second});
  waiting_for_host_.erase(it);
  return true;
}

}  // namespace slipway::launch
