// slipway-bench pmix: an N-rank Open MPI program (MPI_Init, Allreduce,
// Finalize: examples/mpi/allreduce.c --timing) under `slipway launch`
// (slipway's PMIx servers, one job step per rank) against the same program
// under `srun --mpi=pmix` (Slurm's PMIx, one step), side by side on the
// same real test cluster, which the benchmark starts and tears down
// (test_cluster.hpp; as root), as `slipway-bench slurm` does.
// Per run it reads each rank's entry into MPI_Init and exit from
// MPI_Finalize and reports, as medians over the runs:
//   mpi_ms   from the last rank entering MPI_Init to the last leaving
//            MPI_Finalize (the MPI runtime's own cost: wire-up, fences);
//   span_ms  from the first rank entering MPI_Init (includes launch skew);
//   total_ms the whole command, salloc included.
// Last line: `pmix: srun_pmix_ratio=R ...` with R = slipway mpi_ms / srun
// mpi_ms (goal: under 1.2).
//   slipway-bench pmix [--ranks N] [--hosts H] [--runs K] [--partition P]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "bench_registry.hpp"
#include "bench_util.hpp"
#include "test_cluster.hpp"

namespace {

namespace fs = std::filesystem;

struct Options {
  int ranks = 12;
  int hosts = 3;
  int runs = 5;
  std::string partition = "cpu";
};

struct Sample {
  double mpi_ms = 0, span_ms = 0, total_ms = 0;
};

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::optional<Options> parse(const std::vector<std::string>& args) {
  Options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto value = [&](int& out) {
      if (i + 1 >= args.size()) return false;
      out = std::atoi(args[++i].c_str());
      return out > 0;
    };
    if (args[i] == "--ranks" && value(o.ranks)) continue;
    if (args[i] == "--hosts" && value(o.hosts)) continue;
    if (args[i] == "--runs" && value(o.runs)) continue;
    if (args[i] == "--partition" && i + 1 < args.size()) {
      o.partition = args[++i];
      continue;
    }
    std::fprintf(stderr, "usage: slipway-bench pmix [--ranks N] [--hosts H] [--runs K] [--partition P]\n");
    return std::nullopt;
  }
  if (o.ranks % o.hosts != 0) {
    std::fprintf(stderr, "pmix: --ranks must be a multiple of --hosts (ranks per host are equal)\n");
    return std::nullopt;
  }
  return o;
}

// Runs `command` with output to `out`; the wall time in ms, or nothing on failure.
std::optional<double> timed(const std::string& command, const fs::path& out) {
  auto start = std::chrono::steady_clock::now();
  int rc = std::system((command + " >" + quoted(out.string()) + " 2>&1").c_str());
  auto end = std::chrono::steady_clock::now();
  if (rc != 0) return std::nullopt;
  return std::chrono::duration<double, std::milli>(end - start).count();
}

// The ranks' timing lines in `out`: MPI-section and span times.
std::optional<Sample> read_sample(const fs::path& out, int ranks, double total_ms) {
  static const std::regex line(R"(allreduce: timing rank (\d+) start_us (\d+) end_us (\d+))");
  std::ifstream in(out);
  std::vector<long long> starts, ends;
  for (std::string text; std::getline(in, text);) {
    std::smatch m;
    if (std::regex_search(text, m, line)) {
      starts.push_back(std::stoll(m[2]));
      ends.push_back(std::stoll(m[3]));
    }
  }
  if (static_cast<int>(starts.size()) != ranks) return std::nullopt;
  long long last_start = *std::max_element(starts.begin(), starts.end());
  long long first_start = *std::min_element(starts.begin(), starts.end());
  long long last_end = *std::max_element(ends.begin(), ends.end());
  return Sample{(last_end - last_start) / 1000.0, (last_end - first_start) / 1000.0, total_ms};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Summary {
  double mpi_ms, span_ms, total_ms;
};

std::optional<Summary> measure(const std::string& command, const fs::path& out, int ranks, int runs,
                               const char* what) {
  std::vector<double> mpi, span, total;
  for (int i = 0; i < runs; ++i) {
    auto ms = timed(command, out);
    std::optional<Sample> s = ms ? read_sample(out, ranks, *ms) : std::nullopt;
    if (!s) {
      std::fprintf(stderr, "pmix: the %s run failed; its output:\n", what);
      std::ifstream in(out);
      std::stringstream text;
      text << in.rdbuf();
      std::fprintf(stderr, "%s\n", text.str().c_str());
      return std::nullopt;
    }
    mpi.push_back(s->mpi_ms);
    span.push_back(s->span_ms);
    total.push_back(s->total_ms);
  }
  return Summary{median(mpi), median(span), median(total)};
}

// Both sides on the cluster SLURM_CONF names; the exit status.
int compare(const Options& o, const fs::path& dir) {
  const std::string slipway = slipway::bench::sibling_program("slipway");
  const std::string program = slipway::bench::sibling_program("slipway-mpi-allreduce");
  fs::path topology = dir / "allreduce.toml";
  std::ofstream(topology) << "[program]\nname = \"bench-pmix\"\n\n[node.ranks]\ncommand = [\""
                          << program << "\", \"--timing\"]\nreplicas = " << o.ranks
                          << "\nnodes = " << o.hosts << "\nframework = \"mpi\"\n";
  const std::string salloc = "salloc -N" + std::to_string(o.hosts) +
                             " --ntasks-per-node=" + std::to_string(o.ranks / o.hosts) + " -p " +
                             quoted(o.partition) + " ";
  const std::string under_slipway = "SLIPWAY_RUN_ROOT=" + quoted((dir / "runs").string()) + " " +
                                    salloc + quoted(slipway) + " launch " + quoted(topology.string());
  const std::string under_srun = salloc + "srun --mpi=pmix " + quoted(program) + " --timing";

  std::printf("pmix: %d ranks on %d hosts (partition %s), median of %d runs each\n", o.ranks, o.hosts,
              o.partition.c_str(), o.runs);
  auto a = measure(under_slipway, dir / "slipway.out", o.ranks, o.runs, "slipway");
  auto b = a ? measure(under_srun, dir / "srun.out", o.ranks, o.runs, "srun --mpi=pmix") : std::nullopt;
  if (!a || !b) {
    std::printf("pmix: error=run_failed\n");
    return 1;
  }
  std::printf("%-16s %10s %10s %10s\n", "", "mpi_ms", "span_ms", "total_ms");
  std::printf("%-16s %10.1f %10.1f %10.1f\n", "slipway", a->mpi_ms, a->span_ms, a->total_ms);
  std::printf("%-16s %10.1f %10.1f %10.1f\n", "srun --mpi=pmix", b->mpi_ms, b->span_ms, b->total_ms);
  std::printf("pmix: srun_pmix_ratio=%.2f slipway_mpi_ms=%.1f srun_mpi_ms=%.1f span_ratio=%.2f "
              "total_ratio=%.2f ranks=%d hosts=%d\n",
              a->mpi_ms / b->mpi_ms, a->mpi_ms, b->mpi_ms, a->span_ms / b->span_ms,
              a->total_ms / b->total_ms, o.ranks, o.hosts);
  return 0;
}

int run_pmix(const std::vector<std::string>& args) {
  auto options = parse(args);
  if (!options) return 2;
  fs::path dir = fs::temp_directory_path() / ("slipway-bench-pmix-" + std::to_string(getpid()));
  fs::create_directories(dir);
  int status = 1;
  {
    slipway::bench::TestCluster cluster("pmix", dir);
    if (cluster.status() != 0) {
      std::printf("pmix: error=no_test_cluster\n");
      status = cluster.status();
    } else {
      status = compare(*options, dir);
    }
  }
  fs::remove_all(dir);
  return status;
}

}  // namespace

SLIPWAY_BENCHMARK("pmix", "MPI_Init+Allreduce+Finalize under slipway vs srun --mpi=pmix (Slurm)", run_pmix);
