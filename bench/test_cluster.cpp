// The Slurm test cluster a benchmark starts for itself (see test_cluster.hpp).
#include "test_cluster.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bench_util.hpp"
#include "peers.hpp"

namespace slipway::bench {

TestCluster::TestCluster(std::string benchmark, const std::filesystem::path& dir)
    : benchmark_(std::move(benchmark)),
      harness_(find_peer("cluster/cluster.sh").value_or("")),
      dir_(dir / "cluster") {
  const char* name = benchmark_.c_str();
  if (geteuid() != 0) {
    std::fprintf(stderr, "%s: needs root to start the Slurm test cluster (network namespaces)\n", name);
    status_ = 77;
    return;
  }
  const std::string plugin = find_peer("slipway.so").value_or("");
  for (const char* needed : {"cluster/cluster.sh", "slipway.so"}) {
    if (!find_peer(needed)) {
      std::fprintf(stderr, "%s: %s\n", name, missing_peer_message(needed).c_str());
      status_ = 77;
      return;
    }
  }
  setenv("SLIPWAY_SPANK_PLUGIN", plugin.c_str(), 1);
  setenv("SLIPWAY_SPANK_PLUGIN_ARGS", ("slipway_bin=" + sibling_program("slipway")).c_str(), 1);
  std::filesystem::create_directories(dir_);
  const std::filesystem::path log = dir_.parent_path() / "cluster-up.log";
  std::fprintf(stderr, "%s: starting the Slurm test cluster in %s\n", name, dir_.c_str());
  started_ = true;
  int rc = std::system(("timeout 180 '" + harness_ + "' up '" + dir_.string() + "' >'" +
                        log.string() + "' 2>&1")
                           .c_str());
  int code = WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
  if (code == 0) {
    setenv("SLURM_CONF", (dir_ / "etc" / "slurm.conf").c_str(), 1);
    status_ = 0;
    return;
  }
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  std::fprintf(stderr, "%s: the Slurm test cluster did not start (%s up, exit %d):\n%s", name,
               harness_.c_str(), code, text.str().c_str());
  status_ = code == 77 ? 77 : 1;
}

TestCluster::~TestCluster() {
  if (!started_) return;
  int rc = std::system(("timeout 120 '" + harness_ + "' down '" + dir_.string() + "' >/dev/null 2>&1").c_str());
  (void)rc;
}

int run_cluster_rounds(const std::string& bench, const std::string& rounds_script,
                       const std::vector<std::string>& scripts,
                       const std::function<std::vector<std::string>(const std::filesystem::path& dir)>& args) {
  namespace fs = std::filesystem;
  std::vector<std::string> needed = scripts;
  needed.push_back(rounds_script);
  needed.emplace_back("python3");
  for (const std::string& script : needed) {
    if (!find_peer(script)) {
      std::fprintf(stderr, "%s: %s\n", bench.c_str(), missing_peer_message(script).c_str());
      std::printf("%s: error=missing_peer\n", bench.c_str());
      return 77;
    }
  }
  const fs::path dir = fs::temp_directory_path() / ("slipway-bench-" + bench + "-" + std::to_string(getpid()));
  fs::create_directories(dir / "work");
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  int status = 1;
  {
    TestCluster cluster(bench, dir);
    if (cluster.status() != 0) {
      std::printf("%s: error=no_test_cluster\n", bench.c_str());
      status = cluster.status();
    } else {
      setenv("SLIPWAY_RUN_ROOT", (dir / "work" / "runs").c_str(), 1);
      std::string command = "/usr/bin/python3 '" + *find_peer(rounds_script) + "' '" + sibling_program("slipway") + "'";
      for (const std::string& arg : args(dir)) command += " '" + arg + "'";
      const int rc = std::system(command.c_str());
      status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
    }
  }
  if (status == 0) fs::remove_all(dir);
  return status;
}

}  // namespace slipway::bench
