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
#include <string>

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

}  // namespace slipway::bench
