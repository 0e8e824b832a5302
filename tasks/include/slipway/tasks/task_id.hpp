// TaskId: the task runner's handle on one run of one task (one attempt):
// opaque, never reused within a runner, and no pid.
#pragma once

#include <compare>
#include <cstdint>

namespace slipway::tasks {

struct TaskId {
  std::uint64_t value = 0;  // 0: no task
  explicit operator bool() const { return value != 0; }
  auto operator<=>(const TaskId&) const = default;
};

}  // namespace slipway::tasks
