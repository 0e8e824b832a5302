// A fake /proc for the tests of a task's usage (process_usage.hpp): stat
// lines, threads and children files given as literal text, and counts of
// what was read.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "slipway/exec/process_usage.hpp"

namespace node_types_test {

using slipway::exec::ProcSource;

// A /proc/PID/stat line with these fields (the rest as a real one).
inline std::string stat_line(pid_t pid, const std::string& comm, char state, std::uint64_t utime, std::uint64_t stime,
                      std::int64_t cutime, std::int64_t cstime, int threads, std::int64_t rss) {
  return std::to_string(pid) + " (" + comm + ") " + state + " 1 " + std::to_string(pid) + " 27508 0 -1 4194304 102 0 0 0 " +
         std::to_string(utime) + " " + std::to_string(stime) + " " + std::to_string(cutime) + " " +
         std::to_string(cstime) + " 20 0 " + std::to_string(threads) + " 0 3205537 3133440 " + std::to_string(rss) +
         " 18446744073709551615 94367371489280 94367371509161 140737328912576 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";
}

struct FakeProc : ProcSource {
  std::map<pid_t, std::string> stats;
  std::map<pid_t, std::vector<pid_t>> tids;                  // absent: the pid alone
  std::map<std::pair<pid_t, pid_t>, std::string> children_files;  // (pid, tid)
  std::size_t stat_reads = 0, children_reads = 0;

  std::optional<std::string> stat(pid_t pid) override {
    ++stat_reads;
    auto it = stats.find(pid);
    if (it == stats.end()) return std::nullopt;
    return it->second;
  }
  std::vector<pid_t> threads(pid_t pid, std::size_t limit) override {
    auto it = tids.find(pid);
    std::vector<pid_t> out = it == tids.end() ? std::vector<pid_t>{pid} : it->second;
    if (out.size() > limit) out.resize(limit);
    return out;
  }
  std::optional<std::string> children(pid_t pid, pid_t tid) override {
    ++children_reads;
    auto it = children_files.find({pid, tid});
    if (it == children_files.end()) return std::string();
    return it->second;
  }
};

}  // namespace node_types_test
