// slipway-bench slurm: `srun --program` of a 12-task topology against
// `srun -n12` of the same command, side by side (interleaved run by run) on
// the same real test cluster, which the benchmark starts and tears down
// (test_cluster.hpp; as root). Also timed, to show where the difference
// goes: `slipway launch` under salloc (no srun hand-over) and salloc around
// one plain step. Then the same pair at 1,000 tasks: the cluster's hosts
// declare 400 CPUs each (Slurm's config_overrides; they have 2), so that
// 1,000 one-CPU tasks fit in 3 hosts.
//
//   slipway-bench slurm [RUNS [RUNS_1000]]     (defaults 5 and 3)
//
// Last line: `slurm: srun_ratio=R srun_ratio_1000=R1000 ... steps_12=S
// steps_1000=S1000`, the job steps each program started (the count its
// controller says in its first line, from one more untimed run).
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

// The job steps a program's controller says it starts ("(N tasks, S job
// steps)" in its first line), from one run of `command`; -1 when absent.
long job_steps_of(const std::string& command) {
  std::string output;
  if (FILE* pipe = popen((command + " 2>&1").c_str(), "r")) {
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
    pclose(pipe);
  }
  const auto at = output.find(" job steps)");
  if (at == std::string::npos) return -1;
  const auto start = output.rfind(' ', at - 1);
  return start == std::string::npos ? -1 : std::atol(output.c_str() + start + 1);
}
using slipway::bench::alternating_medians_ms;
using slipway::bench::sibling_program;

int run_slurm_bench(const std::vector<std::string>& args) {
  int runs = args.empty() ? 5 : std::max(1, std::atoi(args[0].c_str()));
  int runs_1000 = args.size() < 2 ? 3 : std::max(1, std::atoi(args[1].c_str()));
  // Large hosts: 1,000 one-CPU tasks on 3 of them.
  setenv("SLIPWAY_CLUSTER_CPUS", "400", 1);
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
      fs::path topology_1000 = dir / "work" / "bench1000.toml";
      std::ofstream(topology_1000) << "[program]\nname = \"bench1000\"\n\n[node.t]\n"
                                      "command = [\"/bin/true\"]\nreplicas = 1000\n";
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
      std::vector<double> medians_1000;
      if (!medians.empty()) {
        medians_1000 = alternating_medians_ms(
            {cd + "srun -N3 -n1000 -p cpu --program='" + topology_1000.string() + "'" + quiet,
             cd + "srun -N3 -n1000 -p cpu /bin/true" + quiet},
            runs_1000);
      }
      const long steps_12 = job_steps_of(cd + "srun -N3 -n12 -p cpu --program='" + topology.string() + "'");
      const long steps_1000 =
          job_steps_of(cd + "srun -N3 -n1000 -p cpu --program='" + topology_1000.string() + "'");
      if (!medians.empty() && medians_1000.empty()) {
        std::fprintf(stderr, "\n*** slurm: a 1000-task run failed; srun_ratio_1000 reads n/a ***\n\n");
        medians_1000 = {0, 0};
      }
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
        std::printf("slurm: median of %d interleaved runs, 1000 tasks of /bin/true on 3 hosts "
                    "declaring 400 CPUs each\n", runs_1000);
        std::printf("  srun --program=bench1000.toml        %8.1f ms\n", medians_1000[0]);
        std::printf("  srun -n1000 /bin/true                %8.1f ms\n", medians_1000[1]);
        auto figure = [](double v, const char* format) {
          char buf[32];
          if (v <= 0) return std::string("n/a");
          std::snprintf(buf, sizeof buf, format, v);
          return std::string(buf);
        };
        std::printf("slurm: srun_ratio=%.2f srun_ratio_1000=%s program_ms=%.1f srun_ms=%.1f "
                    "program_1000_ms=%s srun_1000_ms=%s launch_in_salloc_ms=%.1f "
                    "srun_in_salloc_ms=%.1f steps_12=%ld steps_1000=%ld\n",
                    slipway_ms / srun_ms,
                    figure(medians_1000[1] > 0 ? medians_1000[0] / medians_1000[1] : 0, "%.2f").c_str(),
                    slipway_ms, srun_ms, figure(medians_1000[0], "%.1f").c_str(),
                    figure(medians_1000[1], "%.1f").c_str(), launch_ms, salloc_srun_ms, steps_12, steps_1000);
        status = 0;
      }
    }
  }
  fs::remove_all(dir);
  return status;
}

}  // namespace

SLIPWAY_BENCHMARK("slurm", "srun --program of 12 and 1000 tasks vs srun -n12/-n1000, on a real test cluster",
                  run_slurm_bench);
