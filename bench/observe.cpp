// slipway-bench observe: the cost of seeing inside a running program of
// 1,000 tasks (scrape, `slipway top`, the page, the controller's CPU), each
// against a peer (Prometheus's own /metrics, procps top). The rounds are
// observe_rounds.py (its docstring says what is measured). Last line:
// `observe: scrape_ms=... top_cpu_pct=... page_load_ms=...
// controller_cpu_pct_idle=... ...`.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench_registry.hpp"
#include "bench_util.hpp"
#include "peers.hpp"

namespace {

int run_observe(const std::vector<std::string>& args) {
  const auto script = slipway::bench::find_peer("observe_rounds.py");
  if (!script) {
    std::fprintf(stderr, "observe: observe_rounds.py not found (cmake --install BUILD --prefix PREFIX installs it)\n");
    return 1;
  }
  std::vector<std::string> argv{"/usr/bin/python3", *script, slipway::bench::sibling_program("slipway")};
  for (const std::string& a : args) argv.push_back(a);
  std::vector<char*> c;
  for (auto& a : argv) c.push_back(a.data());
  c.push_back(nullptr);
  std::fflush(stdout);
  ::execv(c[0], c.data());
  std::perror("observe: /usr/bin/python3");
  return 1;
}

SLIPWAY_BENCHMARK("observe",
                  "a local program of TASKS sleeping tasks: /metrics scrape time (against Prometheus's own), "
                  "slipway top's CPU (against procps top), the page's first draw in headless Chromium, the "
                  "controller's CPU with a scrape a second [TASKS, default 1000] [ROUNDS, default 50] "
                  "[WINDOW seconds, default 20]",
                  run_observe);

}  // namespace
