// The benchmark registry of slipway-bench. Each benchmark lives in its own
// file under bench/ and registers itself with SLIPWAY_BENCHMARK.
//
// Contract: a benchmark runs itself side by side with its peer, prints what
// it measures as it goes, and ends with exactly one line
// `NAME: key=value key=value ...`. It returns the process exit status.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace slipway::bench {

using BenchmarkFn = std::function<int(const std::vector<std::string>& args)>;

struct Benchmark {
  std::string summary;
  BenchmarkFn run;
};

std::map<std::string, Benchmark>& registry();

struct Registrar {
  Registrar(const std::string& name, std::string summary, BenchmarkFn fn) {
    registry().emplace(name, Benchmark{std::move(summary), std::move(fn)});
  }
};

}  // namespace slipway::bench

#define SLIPWAY_BENCH_CONCAT2(a, b) a##b
#define SLIPWAY_BENCH_CONCAT(a, b) SLIPWAY_BENCH_CONCAT2(a, b)
#define SLIPWAY_BENCHMARK(name, summary, fn)                                   \
  static const ::slipway::bench::Registrar SLIPWAY_BENCH_CONCAT(               \
      slipway_bench_registrar_, __LINE__)(name, summary, fn)
