// Small helpers the benchmarks share: finding slipway's programs beside
// slipway-bench, and timing a shell command.
#pragma once

#include <string>

namespace slipway::bench {

// NAME in the directory of the running slipway-bench (build/bin or bin/).
std::string sibling_program(const std::string& name);

// Median wall time in ms of `command` run by /bin/sh `runs` times; negative
// when any run exits non-zero.
double median_command_ms(const std::string& command, int runs);

}  // namespace slipway::bench
