// RUN/resume and RUN/counters (run_counters.hpp).
#include "slipway/launch/run_counters.hpp"

#include <sstream>

#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/run_file.hpp"

namespace slipway::launch {
namespace {

constexpr long long kMaxCount = 1000000000;

bool in_range(long long n) { return n >= 0 && n <= kMaxCount; }

}  // namespace

std::string format_resume(const ResumeRecord& record) {
  return "resume " + std::to_string(record.resume) + "\nstarted " + std::to_string(record.started) + "\n";
}

std::optional<ResumeRecord> read_resume(const std::string& run_directory) {
  const auto text = read_run_file(run_directory + "/resume", 256);
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  std::string key;
  long long resume = -1, started = -1;
  while (in >> key) {
    long long value = -1;
    if (!(in >> value)) return std::nullopt;
    if (key == "resume") resume = value;
    else if (key == "started") started = value;
    else return std::nullopt;
  }
  if (!in_range(resume) || started < 0) return std::nullopt;
  return ResumeRecord{static_cast<std::uint32_t>(resume), static_cast<std::time_t>(started)};
}

std::string format_counters(const RunCounters& counters) {
  std::string out;
  for (const auto& [name, c] : counters) {
    out += "task " + name + " " + std::to_string(c.attempt) + " " + std::to_string(c.epoch) + "\n";
  }
  return out;
}

RunCounters read_counters(const std::string& run_directory) {
  RunCounters counters;
  const auto text = read_run_file(run_directory + "/counters", kMaxCountersBytes);
  if (!text) return counters;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string word, name;
    long long attempt = -1, epoch = -1;
    if (!(fields >> word >> name >> attempt >> epoch) || word != "task" || !is_plain_name(name) ||
        !in_range(attempt) || !in_range(epoch)) {
      return {};
    }
    counters[name] = TaskCounters{static_cast<int>(attempt), static_cast<int>(epoch)};
  }
  return counters;
}

}  // namespace slipway::launch
