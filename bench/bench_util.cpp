// Shared benchmark helpers (see bench_util.hpp).
#include "bench_util.hpp"

#include "peers.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace slipway::bench {

std::string sibling_program(const std::string& name) {
  if (auto path = find_peer(name)) return *path;
  std::fprintf(stderr, "slipway-bench: %s\n", missing_peer_message(name).c_str());
  return peer_candidates(name).front();
}

namespace {

// Wall time in ms of one run of `command`; negative when it failed.
double command_ms(const std::string& command) {
  auto start = std::chrono::steady_clock::now();
  int rc = std::system(command.c_str());
  auto end = std::chrono::steady_clock::now();
  if (rc != 0) return -1;
  return std::chrono::duration<double, std::milli>(end - start).count();
}

double median(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

std::vector<double> alternating_medians_ms(const std::vector<std::string>& commands, int runs) {
  std::vector<std::vector<double>> times(commands.size());
  for (int round = -1; round < runs; ++round) {
    for (std::size_t i = 0; i < commands.size(); ++i) {
      double ms = command_ms(commands[i]);
      if (ms < 0) return {};
      if (round >= 0) times[i].push_back(ms);
    }
  }
  std::vector<double> medians;
  for (auto& t : times) medians.push_back(median(std::move(t)));
  return medians;
}

}  // namespace slipway::bench
