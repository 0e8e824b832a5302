// What a run keeps across resumes besides its files (docs/resume.md): how
// many times it was resumed (RUN/resume) and each task's last attempt and
// epoch (RUN/counters), so that attempts and epochs keep counting after a
// resume.
//
// Contract: RUN/resume holds "resume N\nstarted UNIX_SECONDS\n" (N: 0 at
// the first start, +1 per resume; started: when this start began).
// RUN/counters holds one line "task NAME ATTEMPT EPOCH" per task that was
// launched, rewritten atomically whenever a launch changes it. Readers
// accept only what they wrote (bounded: kMaxCountersBytes, names that
// is_plain_name accepts, counts in [0, 1e9]); anything else reads as
// nothing, never as an error.
#pragma once

#include <cstdint>
#include <ctime>
#include <map>
#include <optional>
#include <string>

namespace slipway::launch {

inline constexpr std::size_t kMaxCountersBytes = 64u << 20;

struct TaskCounters {
  int attempt = 0;
  int epoch = 0;
};
using RunCounters = std::map<std::string, TaskCounters>;  // by task name "node.replica"

struct ResumeRecord {
  std::uint32_t resume = 0;
  std::time_t started = 0;
};

std::string format_resume(const ResumeRecord& record);
std::optional<ResumeRecord> read_resume(const std::string& run_directory);

std::string format_counters(const RunCounters& counters);
RunCounters read_counters(const std::string& run_directory);

}  // namespace slipway::launch
