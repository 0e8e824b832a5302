// slipway-bench slurm: `srun --program` of a 12-task topology against
// `srun -n12` of the same command, side by side (interleaved run by run) on
// the same real test cluster, which the benchmark starts and tears down
// (test_cluster.hpp; as root). Also timed, to show where the difference
// goes: `slipway launch` under salloc (no srun hand-over) and salloc around
// one plain step. Last line: `slurm: srun_ratio=R ...`.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_registry.hpp"
#include "bench_util.hpp"
#include "test_cluster.hpp"

namespace {

namespace fs = std::filesystem;
using slipway::bench::alternating_medians_ms;
using slipway::bench::sibling_program;

int run_slurm_bench(const std::vector<std::string>& args) {
  int runs = args.empty() ? 5 : std::max(1, std::atoi(args[0].c_str()));
  std::string slipway = sibling_program("slipway");
  fs::path dir = fs::temp_directory_path() / ("slipway-bench-slurm-" + std::to_string(getpid()));
  fs::create_directories(dir / "work");
  int status = 1;
  {
    slipway::bench::TestCluster cluster("slurm", dir);
    if (cluster.status() != 0) {
      std::printf("slurm: error=no_test_cluster\n");
      status = cluster.status();
    } else {
      setenv("SLIPWAY_RUN_ROOT", (dir / "work" / "runs").c_str(), 1);
      fs::path topology = dir / "work" / "bench12.toml";
      std::ofstream(topology) << "[program]\nname = \"bench12\"\n\n[node.t]\ncommand = [\"/bin/true\"]\n"
                                 "replicas = 12\n";
      std::string cd = "cd '" + (dir / "work").string() + "' && ";
      const std::string quiet = " >/dev/null 2>&1";
      const std::string alloc = "salloc -N3 -n12 -p cpu --no-kill ";
      std::vector<std::string> commands{
          // what is compared
          cd + "srun -N3 -n12 -p cpu --program='" + topology.string() + "'" + quiet,
          cd + "srun -N3 -n12 -p cpu /bin/true" + quiet,
          // where the difference goes: the controller under salloc itself
          // (no srun hand-over), and salloc around one plain step
          cd + alloc + "'" + slipway + "' launch '" + topology.string() + "'" + quiet,
          cd + alloc + "srun -n12 /bin/true" + quiet};
      // Warm up (first contact with every slurmd: the untimed round), then
      // interleave the commands run by run, so that both sides see the same
      // machine load.
      auto medians = alternating_medians_ms(commands, runs);
      if (medians.empty()) {
        std::fprintf(stderr, "slurm: a run failed\n");
        std::printf("slurm: error=run_failed\n");
      } else {
        double slipway_ms = medians[0], srun_ms = medians[1];
        double launch_ms = medians[2], salloc_srun_ms = medians[3];
        std::printf("slurm: median of %d interleaved runs, 12 tasks of /bin/true on 3 hosts\n", runs);
        std::printf("  srun --program=bench12.toml          %8.1f ms\n", slipway_ms);
        std::printf("  srun -n12 /bin/true                  %8.1f ms\n", srun_ms);
        std::printf("  salloc ... slipway launch bench12    %8.1f ms\n", launch_ms);
        std::printf("  salloc ... srun -n12 /bin/true       %8.1f ms\n", salloc_srun_ms);
        std::printf("slurm: srun_ratio=%.2f program_ms=%.1f srun_ms=%.1f launch_in_salloc_ms=%.1f "
                    "srun_in_salloc_ms=%.1f\n",
                    slipway_ms / srun_ms, slipway_ms, srun_ms, launch_ms, salloc_srun_ms);
        status = 0;
      }
    }
  }
  fs::remove_all(dir);
  return status;
}

}  // namespace

SLIPWAY_BENCHMARK("slurm", "srun --program of 12 tasks vs srun -n12, on a real test cluster", run_slurm_bench);
