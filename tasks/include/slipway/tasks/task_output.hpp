// TaskOutput: where one task's command writes, and where that goes.
//
// Contract: the log LOG_DIR/NODE.REPLICA.log (task_log.hpp, bounded by
// SLIPWAY_LOG_LIMIT) and two pipes for the command's stdout and stderr.
// pump() relays what a read end has as whole lines behind "NODE.REPLICA: "
// (line_prefixer.hpp) to the terminal streams (terminal_stream.hpp) and,
// raw, to the log; at end-of-file the last partial line is written and
// that end closes. The read ends are non-blocking. The log is opened for
// append when the first output comes, or by keep_log() (a task that
// failed), with a "=== slipway: NAME attempt N [epoch E ]on HOST at TIME
// ===" header (the epoch for a task of a world past its first), TIME being
// when the TaskOutput was made: a task that printed nothing and
// succeeded leaves no empty log behind (creating files is much of what
// starting a task costs). No log when log_dir is empty.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "slipway/base/unique_fd.hpp"
#include "slipway/core/environment.hpp"
#include "slipway/tasks/line_prefixer.hpp"
#include "slipway/tasks/task_log.hpp"

namespace slipway::tasks {

class TaskOutput {
 public:
  // `log_limit`: the bound of the log file (0: none).
  TaskOutput(const std::string& task_name, const std::string& log_dir, core::TaskLaunch launch,
             const std::string& host, std::uint64_t log_limit = kDefaultLogLimit);
  TaskOutput(const TaskOutput&) = delete;
  TaskOutput& operator=(const TaskOutput&) = delete;

  int stdout_write() const { return out_write_.get(); }
  int stderr_write() const { return err_write_.get(); }
  void close_write_ends();

  // The read ends still open (0, 1 or 2 of them).
  std::vector<int> open_fds() const;
  // Reads once from `fd` (one of open_fds()) and relays it; returns whether
  // it read anything (false at end-of-file, which closes `fd`, and when
  // nothing is there yet).
  bool pump(int fd);
  // Relays what both read ends hold now, without waiting.
  void relay_available();
  // Relays everything left, waiting for end-of-file on both read ends.
  void drain();
  bool finished() const { return !out_ && !err_; }
  // Makes sure the log exists (its header at least), e.g. for a failed task.
  void keep_log();

 private:
  std::unique_ptr<TaskLog> log_;
  base::UniqueFd out_, err_, out_write_, err_write_;
  std::unique_ptr<LinePrefixer> out_lines_, err_lines_;
};

}  // namespace slipway::tasks
