// TaskLog: one task's log file, LOG_DIR/NODE.REPLICA.log, as the task
// agent and the launcher's in-process tasks write it.
//
// Contract:
// - The file is opened for append (mode 0600: a task's output may hold its
//   secrets; a symbolic link is not followed) at the first append() or at
//   keep(), and `header` is written first. A log that cannot be opened is
//   reported once and left out.
// - append() writes every byte it can. A write that fails (a full disk,
//   EFBIG, EIO) is reported once per log on stderr ("NAME: slipway: cannot
//   write to its log PATH: REASON; ..."); the bytes lost are counted and,
//   when writing works again, a line "[slipway: N bytes of output lost
//   here: REASON]" marks the gap.
// - Size bound: when the file would grow past `limit` bytes (0: no bound),
//   it is renamed PATH.1 (replacing an older PATH.1), cut after the chunk's
//   last whole line, and a new PATH begins with "=== slipway: NAME log
//   continued: the earlier part is in NAME.log.1 ===": a task's logs never
//   hold more than twice the limit, and the newest output is in PATH.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "slipway/base/unique_fd.hpp"

namespace slipway::tasks {

// 64 MiB: the default bound of one log file.
inline constexpr std::uint64_t kDefaultLogLimit = std::uint64_t{64} << 20;

// SLIPWAY_LOG_LIMIT: a size in bytes with an optional K, M or G suffix
// (powers of 1024), or 0 for no bound; kDefaultLogLimit when unset.
// Returns nothing when it is set but not such a size.
std::optional<std::uint64_t> log_limit_from_environment();

class TaskLog {
 public:
  TaskLog(std::string task_name, std::string path, std::string header, std::uint64_t limit);
  TaskLog(const TaskLog&) = delete;
  TaskLog& operator=(const TaskLog&) = delete;

  void keep();
  void append(std::string_view bytes);
  const std::string& path() const { return path_; }

 private:
  bool open_file(const std::string& first_line);
  // Writes `bytes` to the open file, counting what fails.
  void write_counted(std::string_view bytes);
  void rotate();
  void report(const std::string& what, int error);

  std::string name_, path_, header_;
  std::uint64_t limit_;
  std::uint64_t size_ = 0;
  std::uint64_t lost_ = 0;
  std::string lost_reason_;
  bool tried_ = false;
  bool reported_ = false;
  base::UniqueFd fd_;
};

}  // namespace slipway::tasks
