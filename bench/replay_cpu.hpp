// The CPU a round of `slipway-bench replay` costs each of its processes:
// utime + stime of /proc/PID/stat (every thread of the process, those that
// ended included) and the context switches of /proc/PID/status, read at the
// start and at the end of the round's measured window.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <vector>

namespace slipway::bench {

struct ProcessCpu {
  double seconds = 0;          // utime + stime
  std::uint64_t switches = 0;  // voluntary + involuntary context switches
};

// Each process's figures now; a process that is gone (or whose files do not
// parse) is left out.
std::map<pid_t, ProcessCpu> read_cpu(const std::vector<pid_t>& pids);

// What `pid` used between two readings (zero when either lacks it).
ProcessCpu cpu_used(const std::map<pid_t, ProcessCpu>& before, const std::map<pid_t, ProcessCpu>& after, pid_t pid);

// The sum over every process of `after` (those `before` lacks count from 0).
ProcessCpu cpu_used_total(const std::map<pid_t, ProcessCpu>& before, const std::map<pid_t, ProcessCpu>& after);

}  // namespace slipway::bench
