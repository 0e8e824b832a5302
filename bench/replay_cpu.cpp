// Reading the CPU of the processes of `slipway-bench replay` from /proc
// (see replay_cpu.hpp): the stat line through slipway::exec's bounded
// reader and parser, the switch counts from the status file.
#include "replay_cpu.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

#include "slipway/exec/proc_files.hpp"
#include "slipway/exec/process_usage.hpp"

namespace slipway::bench {
namespace {

// voluntary_ctxt_switches + nonvoluntary_ctxt_switches of /proc/PID/status
// (a file of a few dozen short lines).
std::optional<std::uint64_t> switches_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  if (!in) return std::nullopt;
  std::uint64_t total = 0;
  int found = 0;
  std::string line;
  for (int lines = 0; lines < 256 && std::getline(in, line); ++lines) {
    unsigned long long n = 0;
    if (std::sscanf(line.c_str(), "voluntary_ctxt_switches: %llu", &n) == 1 ||
        std::sscanf(line.c_str(), "nonvoluntary_ctxt_switches: %llu", &n) == 1) {
      total += n;
      ++found;
    }
  }
  if (found != 2) return std::nullopt;
  return total;
}

ProcessCpu minus(const ProcessCpu& a, const ProcessCpu& b) { return {a.seconds - b.seconds, a.switches - b.switches}; }

}  // namespace

std::map<pid_t, ProcessCpu> read_cpu(const std::vector<pid_t>& pids) {
  static const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  exec::ProcFiles proc;
  std::map<pid_t, ProcessCpu> out;
  for (pid_t pid : pids) {
    const auto text = proc.stat(pid);
    const auto stat = text ? exec::parse_proc_stat(*text) : std::nullopt;
    const auto switches = switches_of(pid);
    if (!stat || !switches) continue;
    out[pid] = {static_cast<double>(stat->utime + stat->stime) / ticks, *switches};
  }
  return out;
}

ProcessCpu cpu_used(const std::map<pid_t, ProcessCpu>& before, const std::map<pid_t, ProcessCpu>& after, pid_t pid) {
  const auto b = before.find(pid);
  const auto a = after.find(pid);
  if (b == before.end() || a == after.end()) return {};
  return minus(a->second, b->second);
}

ProcessCpu cpu_used_total(const std::map<pid_t, ProcessCpu>& before, const std::map<pid_t, ProcessCpu>& after) {
  ProcessCpu total;
  for (const auto& [pid, now] : after) {
    const auto b = before.find(pid);
    const ProcessCpu used = b == before.end() ? now : minus(now, b->second);
    total.seconds += used.seconds;
    total.switches += used.switches;
  }
  return total;
}

}  // namespace slipway::bench
