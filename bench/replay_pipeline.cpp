// The request loop every load process of `slipway-bench replay` runs (see
// run_pipeline in replay_load.hpp).
#include <thread>

#include "replay_load.hpp"

namespace slipway::bench {

RoleResult run_pipeline(const LoadWindow& w, int depth, const Pipeline& pipeline) {
  using Clock = std::chrono::steady_clock;
  RoleResult out;
  int in_flight = 0;
  std::this_thread::sleep_until(w.start);
  for (;;) {
    bool added = false;
    while (!w.over(Clock::now()) && in_flight < depth) {
      pipeline.add();
      ++in_flight;
      added = true;
    }
    if (added) pipeline.send();
    if (in_flight == 0) return out;
    const std::uint64_t items = pipeline.complete();
    --in_flight;
    if (w.counts(Clock::now())) {
      out.items += items;
      ++out.requests;
    }
  }
}

}  // namespace slipway::bench
