// UnitHandle: what carries running launch units, as the launcher loop sees
// it: a child process (a slipway-exec, an srun step) or a task the local
// launcher runs itself (tasks::TaskId). Opaque to the loop, which only
// compares and orders handles; a launcher makes them and reads them back.
#pragma once

#include <sys/types.h>

#include <compare>
#include <cstdint>

#include "slipway/tasks/task_id.hpp"

namespace slipway::launch {

class UnitHandle {
 public:
  UnitHandle() = default;
  static UnitHandle of_process(pid_t pid) { return {Kind::process, static_cast<std::uint64_t>(pid)}; }
  static UnitHandle of_task(tasks::TaskId id) { return {Kind::task, id.value}; }

  explicit operator bool() const { return kind_ != Kind::none; }
  bool is_process() const { return kind_ == Kind::process; }
  // The process's pid (is_process()), else -1.
  pid_t pid() const { return is_process() ? static_cast<pid_t>(value_) : -1; }
  // The in-launcher task (not is_process()), else none.
  tasks::TaskId task() const { return kind_ == Kind::task ? tasks::TaskId{value_} : tasks::TaskId{}; }

  auto operator<=>(const UnitHandle&) const = default;

 private:
  enum class Kind : std::uint8_t { none, process, task };
  UnitHandle(Kind kind, std::uint64_t value) : kind_(kind), value_(value) {}
  Kind kind_ = Kind::none;
  std::uint64_t value_ = 0;
};

}  // namespace slipway::launch
