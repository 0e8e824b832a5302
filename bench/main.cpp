// slipway-bench: runs one named benchmark side by side with its peer
// (`slipway-bench NAME [ARGS...]`; `slipway-bench --list`; `slipway-bench
// --peers` lists every peer, found or missing: peers.hpp).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_registry.hpp"
#include "peers.hpp"

namespace slipway::bench {
std::map<std::string, Benchmark>& registry() {
  static std::map<std::string, Benchmark> benchmarks;
  return benchmarks;
}
}  // namespace slipway::bench

static void usage(FILE* out) {
  std::fprintf(out, "Usage: slipway-bench NAME [ARGS...]\n       slipway-bench --list\n"
                   "       slipway-bench --peers   (the programs the benchmarks run, found or missing)\n"
                   "\nBenchmarks:\n");
  for (const auto& [name, bench] : slipway::bench::registry()) {
    std::fprintf(out, "  %-12s %s\n", name.c_str(), bench.summary.c_str());
  }
}

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "--peers") == 0) return slipway::bench::print_peers();
  if (std::strcmp(argv[1], "--list") == 0) {
    for (const auto& [name, bench] : slipway::bench::registry()) std::printf("%s\n", name.c_str());
    return 0;
  }
  auto it = slipway::bench::registry().find(argv[1]);
  if (it == slipway::bench::registry().end()) {
    std::fprintf(stderr, "slipway-bench: unknown benchmark '%s'\n", argv[1]);
    usage(stderr);
    return 2;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  return it->second.run(args);
}
