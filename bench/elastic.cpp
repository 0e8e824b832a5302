// slipway-bench elastic: how fast an elastic torch world recovers from a
// lost host and absorbs a new one, slipway against torchrun (c10d), rounds
// alternating on the same real test cluster, which the benchmark starts and
// tears down (test_cluster.hpp; as root). The rounds are elastic_rounds.py
// (its docstring says what is timed); the trainer is elastic_trainer.py.
// Last line: `elastic: loss_to_step_ms=A torchrun_loss_to_step_ms=B
// loss_speedup=B/A grow_to_step_ms=C torchrun_grow_to_step_ms=D
// grow_speedup=D/C`.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_registry.hpp"
#include "bench_util.hpp"
#include "peers.hpp"
#include "test_cluster.hpp"

namespace {

namespace fs = std::filesystem;

int run_elastic_bench(const std::vector<std::string>& args) {
  const int rounds = args.empty() ? 3 : std::max(1, std::atoi(args[0].c_str()));
  for (const char* needed : {"elastic_rounds.py", "elastic_trainer.py", "python3"}) {
    if (!slipway::bench::find_peer(needed)) {
      std::fprintf(stderr, "elastic: %s\n", slipway::bench::missing_peer_message(needed).c_str());
      std::printf("elastic: error=missing_peer\n");
      return 77;
    }
  }
  const fs::path dir = fs::temp_directory_path() / ("slipway-bench-elastic-" + std::to_string(getpid()));
  fs::create_directories(dir / "work");
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  int status = 1;
  {
    slipway::bench::TestCluster cluster("elastic", dir);
    if (cluster.status() != 0) {
      std::printf("elastic: error=no_test_cluster\n");
      status = cluster.status();
    } else {
      setenv("SLIPWAY_RUN_ROOT", (dir / "work" / "runs").c_str(), 1);
      const std::string command =
          "/usr/bin/python3 '" + *slipway::bench::find_peer("elastic_rounds.py") + "' '" +
          slipway::bench::sibling_program("slipway") + "' '" +
          *slipway::bench::find_peer("elastic_trainer.py") + "' '" + (dir / "work").string() + "' '" +
          (dir / "cluster").string() + "' " + std::to_string(rounds);
      const int rc = std::system(command.c_str());
      status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
    }
  }
  if (status == 0) fs::remove_all(dir);
  return status;
}

SLIPWAY_BENCHMARK("elastic",
                  "an elastic torch world on the test cluster: host loss to training again, and a new "
                  "host to training at the larger size, against torchrun [ROUNDS, default 3]",
                  run_elastic_bench);

}  // namespace
