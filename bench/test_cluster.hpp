// TestCluster: the real Slurm test cluster (tests/cluster/cluster.sh) that
// a Slurm benchmark starts for itself, so that every such benchmark runs the
// same way: `slipway-bench NAME` as root, nothing started by hand.
//
// Contract: the constructor starts a cluster in DIR/cluster with this
// build's slipway.so loaded (pointed at the slipway beside slipway-bench)
// and, once it is up, exports SLURM_CONF for the commands the benchmark
// runs; the destructor stops it. status(): 0 up; 77 it cannot run here (not
// root, no network namespaces, the harness or plugin missing), said on
// stderr; 1 it failed to start, with the end of cluster.sh's output on
// stderr.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace slipway::bench {

class TestCluster {
 public:
  TestCluster(std::string benchmark, const std::filesystem::path& dir);
  ~TestCluster();
  TestCluster(const TestCluster&) = delete;
  TestCluster& operator=(const TestCluster&) = delete;

  int status() const { return status_; }

 private:
  std::string benchmark_;
  std::string harness_;
  std::filesystem::path dir_;
  int status_ = 1;
  bool started_ = false;
};

// The whole of a benchmark whose rounds are a Python script run against the
// test cluster: checks that `scripts` (and python3) are found (else prints
// "BENCH: error=missing_peer" and returns 77), makes DIR = $TMPDIR/
// slipway-bench-BENCH-PID with DIR/work, starts the cluster (else prints
// "BENCH: error=no_test_cluster"), sets SLIPWAY_RUN_ROOT to DIR/work/runs,
// and runs `/usr/bin/python3 ROUNDS_SCRIPT SLIPWAY ARGS...` where `args(dir)`
// gives ARGS (each quoted). Returns the script's exit status; DIR is
// removed when it is 0.
int run_cluster_rounds(const std::string& bench, const std::string& rounds_script,
                       const std::vector<std::string>& scripts,
                       const std::function<std::vector<std::string>(const std::filesystem::path& dir)>& args);

}  // namespace slipway::bench
