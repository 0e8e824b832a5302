// Running a helper program (srun, scontrol, munge) and reading what it
// printed, for the commands that ask other tools (slipway doctor).
//
// Contract: run_for_output() runs argv (argv[0] searched in PATH) with this
// process's environment plus `extra_env`, standard input `input`, and
// returns its exit status and standard output and error together, at most
// `max_bytes` of them (the rest is read and dropped). A program still
// running after `timeout` is killed (SIGKILL, with its process group) and
// reported as timed_out. A program that cannot be started is reported as
// not started, with the reason in `output`. base::first_line() gives the
// first line of one, for one-line findings.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "slipway/base/run_captured.hpp"

namespace slipway::cli {

struct CommandOutput {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;  // 128 + N when killed by signal N
  std::string output;
  bool ok() const { return started && !timed_out && exit_code == 0; }
};

CommandOutput run_for_output(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                             const std::string& input = {}, const std::vector<std::string>& extra_env = {},
                             std::size_t max_bytes = 1 << 20);

}  // namespace slipway::cli
