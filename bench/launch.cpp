// slipway-bench launch: wall time of `slipway run` for 16 and 64 tasks that
// exit at once, side by side with a plain shell loop starting the same
// processes. Last line: `launch: ratio_16=R16 ratio_64=R64 ...`.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "bench_registry.hpp"
#include "bench_util.hpp"

namespace {

namespace fs = std::filesystem;
using slipway::bench::alternating_medians_ms;
using slipway::bench::sibling_program;

int run_launch(const std::vector<std::string>& args) {
  int runs = args.empty() ? 9 : std::max(1, std::atoi(args[0].c_str()));
  std::string slipway = sibling_program("slipway");
  fs::path dir = fs::temp_directory_path() / ("slipway-bench-launch-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::printf("launch: median of %d runs each, the two commands in turn; tasks run /bin/true\n",
              runs);
  std::printf("%-6s %14s %14s %8s\n", "tasks", "slipway_ms", "shell_ms", "ratio");
  std::string summary = "launch:";
  bool ok = true;
  for (int tasks : {16, 64}) {
    fs::path topology = dir / ("bench" + std::to_string(tasks) + ".toml");
    std::ofstream(topology) << "[program]\nname = \"bench" << tasks
                            << "\"\n\n[node.t]\ncommand = [\"/bin/true\"]\nreplicas = " << tasks
                            << "\n";
    std::string run = slipway + " run --run-root '" + (dir / "runs").string() + "' '" +
                      topology.string() + "' >/dev/null 2>&1";
    std::string shell = "sh -c 'for i in $(seq " + std::to_string(tasks) +
                        "); do /bin/true & done; wait' >/dev/null 2>&1";
    auto medians = alternating_medians_ms({run, shell}, runs);
    double slipway_ms = medians.empty() ? -1 : medians[0];
    double shell_ms = medians.empty() ? -1 : medians[1];
    if (slipway_ms < 0 || shell_ms <= 0) {
      std::fprintf(stderr, "launch: a run failed (slipway %s)\n", slipway.c_str());
      ok = false;
      break;
    }
    double ratio = slipway_ms / shell_ms;
    std::printf("%-6d %14.1f %14.1f %8.2f\n", tasks, slipway_ms, shell_ms, ratio);
    char pair[160];
    std::snprintf(pair, sizeof pair, " ratio_%d=%.2f slipway_%d_ms=%.1f shell_%d_ms=%.1f", tasks,
                  ratio, tasks, slipway_ms, tasks, shell_ms);
    summary += pair;
  }
  fs::remove_all(dir);
  if (!ok) return 1;
  std::printf("%s\n", summary.c_str());
  return 0;
}

}  // namespace

SLIPWAY_BENCHMARK("launch", "slipway run of 16/64 instant tasks vs a shell loop", run_launch);
