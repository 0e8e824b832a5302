// slipway-bench resume: a program requeued mid-run and resumed, against the
// same learner under plain srun resuming from its own checkpoint, rounds
// alternating on the real test cluster, which the benchmark starts and
// tears down (test_cluster.hpp; as root). The rounds are resume_rounds.py
// (its docstring says what is timed); the learner is resume_learner.py.
// Last line: `resume: notice_to_stopped_ms=A requeue_to_step_ms=B
// items_lost=C srun_requeue_to_step_ms=D step_ratio=B/D items=N`.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_registry.hpp"
#include "peers.hpp"
#include "test_cluster.hpp"

namespace {

int run_resume_bench(const std::vector<std::string>& args) {
  const int rounds = args.empty() ? 3 : std::max(1, std::atoi(args[0].c_str()));
  const long items = args.size() < 2 ? 100000 : std::max(1000L, std::atol(args[1].c_str()));
  return slipway::bench::run_cluster_rounds(
      "resume", "resume_rounds.py", {"resume_learner.py"}, [rounds, items](const std::filesystem::path& dir) {
        return std::vector<std::string>{*slipway::bench::find_peer("resume_learner.py"), (dir / "work").string(),
                                        std::to_string(rounds), std::to_string(items)};
      });
}

SLIPWAY_BENCHMARK("resume",
                  "a program of a replay node (ITEMS items) and a learner, requeued mid-run with scontrol "
                  "requeue: notice to stopped, requeued job to the learner's next step, items lost; against "
                  "the learner alone under srun [ROUNDS, default 3] [ITEMS, default 100000]",
                  run_resume_bench);

}  // namespace
