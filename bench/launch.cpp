// slipway-bench launch [RUNS [SCALE_RUNS]]: wall time of `slipway run` for
// 16 and 64 tasks that exit at once, side by side with a plain shell loop
// starting the same processes; then the scale series: 1,000, 4,000 and
// 10,000 tasks that each hold a port, with one more task handling them all
// (it checks their live address file), against the shell loop, and the
// cost per task. Last line: `launch: ratio_16=R16 ratio_64=R64 ...
// per_task_ratio_10k_1k=R`.
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
  const int scale_runs = args.size() > 1 ? std::max(1, std::atoi(args[1].c_str())) : 1;
  std::printf("launch scale: median of %d runs each; tasks hold a port and run /bin/true, one task "
              "handles them all\n", scale_runs);
  std::printf("%-6s %14s %14s %12s %12s\n", "tasks", "slipway_ms", "shell_ms", "us_per_task", "shell_us");
  double per_task_1k = 0, shell_per_task_1k = 0;
  for (int tasks : {1000, 4000, 10000}) {
    if (!ok) break;
    fs::path topology = dir / ("scale" + std::to_string(tasks) + ".toml");
    std::ofstream(topology) << "[program]\nname = \"scale" << tasks << "\"\n\n[node.actor]\n"
                            << "command = [\"/bin/true\"]\nreplicas = " << tasks << "\nports = [\"obs\"]\n\n"
                            << "[node.learner]\ncommand = [\"sh\", \"-c\", \"test $(wc -l < "
                               "\\\"$SLIPWAY_ADDR_FILE_ACTOR_OBS\\\") = "
                            << tasks << "\"]\nhandles = [\"actor\"]\n";
    std::string run = slipway + " run --run-root '" + (dir / "runs").string() + "' '" +
                      topology.string() + "' >/dev/null 2>&1";
    std::string shell = "sh -c 'for i in $(seq " + std::to_string(tasks + 1) +
                        "); do /bin/true & done; wait' >/dev/null 2>&1";
    auto medians = alternating_medians_ms({run, shell}, scale_runs);
    if (medians.size() < 2 || medians[0] < 0 || medians[1] <= 0) {
      std::fprintf(stderr, "launch: a scale run of %d tasks failed\n", tasks);
      ok = false;
      break;
    }
    const double per_task_us = medians[0] * 1000 / (tasks + 1);
    const double shell_per_task_us = medians[1] * 1000 / (tasks + 1);
    if (tasks == 1000) {
      per_task_1k = per_task_us;
      shell_per_task_1k = shell_per_task_us;
    }
    std::printf("%-6d %14.1f %14.1f %12.1f %12.1f\n", tasks, medians[0], medians[1], per_task_us,
                shell_per_task_us);
    char pair[200];
    const int k = tasks / 1000;
    std::snprintf(pair, sizeof pair, " slipway_%dk_ms=%.0f shell_%dk_ms=%.0f", k, medians[0], k, medians[1]);
    summary += pair;
    if (tasks == 10000) {
      // The shell's own ratio: what this machine's process start-up costs
      // at that many processes at once.
      std::snprintf(pair, sizeof pair, " shell_per_task_ratio_10k_1k=%.2f per_task_ratio_10k_1k=%.2f",
                    shell_per_task_us / shell_per_task_1k, per_task_us / per_task_1k);
      summary += pair;
    }
  }
  fs::remove_all(dir);
  if (!ok) return 1;
  std::printf("%s\n", summary.c_str());
  return 0;
}

}  // namespace

SLIPWAY_BENCHMARK("launch", "slipway run of 16/64 instant tasks, then 1k/4k/10k tasks holding ports, vs a shell loop",
                  run_launch);
