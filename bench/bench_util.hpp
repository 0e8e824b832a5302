// Small helpers the benchmarks share: finding slipway's programs (through
// peers.hpp), and timing a shell command.
#pragma once

#include <string>
#include <vector>

namespace slipway::bench {

// The program NAME found as peers.hpp says (beside slipway-bench, or in
// libexec/slipway once installed). When it is missing, says so on stderr
// (which, and how to install it) and returns NAME beside slipway-bench.
std::string sibling_program(const std::string& name);

// The commands run in turn, one round untimed and then `runs` timed rounds,
// so that every command sees the same load; the median wall time in ms of
// each, in order. Empty when any run exits non-zero.
std::vector<double> alternating_medians_ms(const std::vector<std::string>& commands, int runs);

}  // namespace slipway::bench
