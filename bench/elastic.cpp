// slipway-bench elastic: how fast an elastic torch world recovers from a
// lost host and absorbs a new one, slipway against torchrun (c10d), rounds
// alternating on the same real test cluster, which the benchmark starts and
// tears down (test_cluster.hpp; as root). The rounds are elastic_rounds.py
// (its docstring says what is timed); the trainer is elastic_trainer.py.
// Last line: `elastic: loss_to_step_ms=A torchrun_loss_to_step_ms=B
// loss_speedup=B/A grow_to_step_ms=C torchrun_grow_to_step_ms=D
// grow_speedup=D/C`.

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


int run_elastic_bench(const std::vector<std::string>& args) {
  const int rounds = args.empty() ? 3 : std::max(1, std::atoi(args[0].c_str()));
  return slipway::bench::run_cluster_rounds(
      "elastic", "elastic_rounds.py", {"elastic_trainer.py"}, [rounds](const std::filesystem::path& dir) {
        return std::vector<std::string>{*slipway::bench::find_peer("elastic_trainer.py"), (dir / "work").string(),
                                        (dir / "cluster").string(), std::to_string(rounds)};
      });
}

SLIPWAY_BENCHMARK("elastic",
                  "an elastic torch world on the test cluster: host loss to training again, and a new "
                  "host to training at the larger size, against torchrun [ROUNDS, default 3]",
                  run_elastic_bench);

}  // namespace
