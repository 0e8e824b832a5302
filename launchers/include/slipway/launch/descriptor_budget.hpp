// DescriptorBudget: how many descriptors the launcher's running units may
// hold together, so that a program of thousands of tasks the launcher runs
// itself (two pipes, a log and held ports each) never hits the limit on
// open files: units start while their sum fits, the others wait for
// running ones to end. I/O-free; measure() reads this process's numbers.
//
// Contract: the budget is the soft limit less what is open now less
// `reserve`. take(unit, cost) charges a unit and says whether it fits; the
// first unit always fits when nothing is charged (a unit costing more than
// the whole budget still runs, alone); cost 0 always fits. release(unit)
// gives its charge back. first_refusal() gives, once, the line that says
// how many run at a time.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace slipway::launch {

class DescriptorBudget {
 public:
  DescriptorBudget(std::size_t units, std::size_t limit, std::size_t open, std::size_t reserve);
  // From this process's soft limit (RLIMIT_NOFILE) and /proc/self/fd.
  static DescriptorBudget measure(std::size_t units, std::size_t reserve);

  bool take(std::size_t unit, std::size_t cost);
  void release(std::size_t unit);
  std::optional<std::string> first_refusal(std::size_t cost);
  std::size_t in_use() const { return in_use_; }

 private:
  std::vector<std::size_t> charged_;  // per unit
  std::size_t limit_;
  std::size_t budget_;
  std::size_t in_use_ = 0;
  bool said_ = false;
};

}  // namespace slipway::launch
