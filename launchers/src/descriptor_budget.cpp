// DescriptorBudget: descriptors the running units hold, against the limit
// on open files (see descriptor_budget.hpp).
#include "slipway/launch/descriptor_budget.hpp"

#include <dirent.h>
#include <sys/resource.h>

#include <algorithm>

namespace slipway::launch {

DescriptorBudget::DescriptorBudget(std::size_t units, std::size_t limit, std::size_t open,
                                   std::size_t reserve)
    : charged_(units, 0), limit_(limit), budget_(limit > open + reserve ? limit - open - reserve : 0) {}

DescriptorBudget DescriptorBudget::measure(std::size_t units, std::size_t reserve) {
  rlimit limit{};
  std::size_t soft = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                         ? static_cast<std::size_t>(limit.rlim_cur)
                         : std::size_t{1} << 20;
  std::size_t open = 0;
  if (DIR* dir = opendir("/proc/self/fd")) {
    while (readdir(dir)) ++open;
    closedir(dir);
  }
  return DescriptorBudget(units, soft, open, reserve);
}

bool DescriptorBudget::take(std::size_t unit, std::size_t cost) {
  if (cost > 0 && in_use_ > 0 && in_use_ + cost > budget_) return false;
  in_use_ += cost;
  charged_.at(unit) = cost;
  return true;
}

void DescriptorBudget::release(std::size_t unit) {
  in_use_ -= std::min(in_use_, charged_.at(unit));
  charged_[unit] = 0;
}

std::optional<std::string> DescriptorBudget::first_refusal(std::size_t cost) {
  if (said_) return std::nullopt;
  said_ = true;
  cost = std::max<std::size_t>(cost, 1);
  return "starting at most " + std::to_string(std::max<std::size_t>(budget_ / cost, 1)) +
         " tasks at a time: each running task holds " + std::to_string(cost) +
         " descriptors and the limit on open files is " + std::to_string(limit_) +
         " (ulimit -n); the others wait their turn";
}

}  // namespace slipway::launch
