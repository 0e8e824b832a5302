// The CPU and memory a task uses: the sum over its command's live process
// tree (the command and its descendants), as /proc gives it, and the JSON
// of the program key usage/NODE.REPLICA (docs/observe.md). No I/O here:
// /proc is read through a ProcSource (proc_files.hpp reads the real one).
//
// Contract:
// - parse_proc_stat() reads one /proc/PID/stat line (proc(5)); the command
//   name may hold spaces and parentheses (the last ')' ends it). Nothing
//   when the line is not one.
// - parse_pid_list() reads a /proc/PID/task/TID/children file (pids
//   separated by spaces), at most `limit` of them, skipping what is no pid.
// - tree_usage() walks the tree from `root` through each process's
//   threads' children files (never all of /proc): cpu_seconds is utime +
//   stime + cutime + cstime of each process (a child that was waited for
//   stays counted in its parent, so a shell running commands one after
//   another does not drop to 0), over `ticks_per_second`; rss_bytes the
//   sum of resident pages times `page_size`; processes how many were read.
//   It reads at most limits.max_processes processes and
//   limits.max_children_reads children files. Nothing when `root` is gone.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slipway::exec {

struct ProcStat {
  char state = '?';
  std::uint64_t utime = 0, stime = 0, cutime = 0, cstime = 0;  // clock ticks
  std::uint64_t num_threads = 0;
  std::uint64_t rss_pages = 0;
};

std::optional<ProcStat> parse_proc_stat(std::string_view line);
std::vector<pid_t> parse_pid_list(std::string_view text, std::size_t limit);

// How a tree is read: the real /proc (proc_files.hpp), or literal files in
// tests. Each returns nothing (or no threads) when the process is gone.
class ProcSource {
 public:
  virtual ~ProcSource() = default;
  virtual std::optional<std::string> stat(pid_t pid) = 0;
  virtual std::vector<pid_t> threads(pid_t pid, std::size_t limit) = 0;
  virtual std::optional<std::string> children(pid_t pid, pid_t tid) = 0;
};

struct TreeLimits {
  std::size_t max_processes = 4096;
  std::size_t max_children_reads = 8192;
};

struct ProcessUsage {
  double cpu_seconds = 0;
  std::uint64_t rss_bytes = 0;
  std::uint32_t processes = 0;
  bool operator==(const ProcessUsage&) const = default;
};

std::optional<ProcessUsage> tree_usage(pid_t root, ProcSource& source, long ticks_per_second, long page_size,
                                       TreeLimits limits = {});

// {"cpu_seconds": F, "rss_bytes": N, "processes": N, "unix_ms": N}
std::string usage_json(const ProcessUsage& usage, std::int64_t unix_ms);

}  // namespace slipway::exec
