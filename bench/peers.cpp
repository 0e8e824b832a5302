// Where the benchmarks' peers are looked for (see peers.hpp).
#include "peers.hpp"

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace slipway::bench {
namespace {

namespace fs = std::filesystem;

enum class Kind { program, data, plugin, debian };

Kind kind_of(const std::string& name) {
  if (name == "slipway.so") return Kind::plugin;
  if (name == "rendezvous_tcpstore.py" || name == "cluster/cluster.sh" || name == "elastic_rounds.py" ||
      name == "elastic_trainer.py" || name == "json_replay.py" || name == "resume_rounds.py" ||
      name == "resume_learner.py" || name == "observe_rounds.py") {
    return Kind::data;
  }
  if (name.rfind("slipway", 0) == 0) return Kind::program;
  return Kind::debian;
}

fs::path self_dir() {
  char self[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return ".";
  self[n] = '\0';
  return fs::path(self).parent_path();
}

bool usable(const fs::path& path, Kind kind) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  return kind != Kind::program && kind != Kind::debian ? ::access(path.c_str(), R_OK) == 0
                                                        : ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

const std::vector<Peer>& peers() {
  static const std::vector<Peer> all = {
      {"slipway", "launch,pmix,slurm,elastic,resume",
       "install slipway itself (cmake --install BUILD --prefix PREFIX puts it beside slipway-bench)"},
      {"slipway-exec", "launch,pmix,slurm,elastic,resume", "install slipway (cmake --install BUILD --prefix PREFIX)"},
      {"slipway-grpc-echo", "rpc",
       "it is built only when gRPC is found: apt-get install libgrpc++-dev protobuf-compiler-grpc "
       "libprotobuf-dev, rebuild, then cmake --install BUILD --prefix PREFIX"},
      {"ucx_perftest", "rpc", "apt-get install ucx-utils"},
      {"rendezvous_tcpstore.py", "rendezvous", "cmake --install BUILD --prefix PREFIX installs it"},
      {"elastic_rounds.py", "elastic", "cmake --install BUILD --prefix PREFIX installs it"},
      {"elastic_trainer.py", "elastic", "cmake --install BUILD --prefix PREFIX installs it"},
      {"resume_rounds.py", "resume", "cmake --install BUILD --prefix PREFIX installs it"},
      {"resume_learner.py", "resume", "cmake --install BUILD --prefix PREFIX installs it"},
      {"observe_rounds.py", "observe", "cmake --install BUILD --prefix PREFIX installs it"},
      {"prometheus", "observe", "apt-get install prometheus"},
      {"chromium", "observe", "apt-get install chromium chromium-driver python3-selenium"},
      {"python3", "rendezvous,elastic,replay,resume", "apt-get install python3 python3-torch (the peer imports torch)"},
      {"slipway-replay", "replay,resume", "install slipway (cmake --install BUILD --prefix PREFIX)"},
      {"redis-server", "replay", "apt-get install redis-server"},
      {"json_replay.py", "replay", "cmake --install BUILD --prefix PREFIX installs it"},
      {"slipway-mpi-allreduce", "pmix",
       "it is built only when Open MPI is found: apt-get install libopenmpi-dev openmpi-bin, "
       "rebuild, then cmake --install BUILD --prefix PREFIX"},
      {"salloc", "pmix,slurm,elastic,resume", "apt-get install slurm-client"},
      {"slipway.so", "pmix,slurm,elastic,resume",
       "the SPANK plugin (built when libslurm-dev is installed) is put by cmake --install BUILD in "
       "SLIPWAY_SPANK_PLUGIN_DIR, configured as " SLIPWAY_SPANK_PLUGIN_DIR},
      {"cluster/cluster.sh", "pmix,slurm,elastic,resume", "cmake --install BUILD --prefix PREFIX installs the test cluster harness"},
  };
  return all;
}

std::vector<std::string> peer_candidates(const std::string& name) {
  const fs::path here = self_dir();
  std::vector<std::string> out;
  switch (kind_of(name)) {
    case Kind::program:
      out.push_back((here / name).string());
      out.push_back((here / ".." / "libexec" / "slipway" / name).lexically_normal().string());
      break;
    case Kind::data:
      out.push_back((here / ".." / "share" / "slipway" / "bench" / name).lexically_normal().string());
      break;
    case Kind::plugin: {
      out.push_back((here / ".." / "spank_plugin" / name).lexically_normal().string());  // build tree
      // Installed: SLIPWAY_SPANK_PLUGIN_DIR, relative to the prefix when under it;
      // else PREFIX/lib/slurm after `cmake --install --prefix` elsewhere
      // (spank_plugin/install_plugin.cmake).
      const std::string prefix = SLIPWAY_INSTALL_PREFIX, dir = SLIPWAY_SPANK_PLUGIN_DIR;
      const bool under = dir.rfind(prefix + "/", 0) == 0;
      out.push_back(
          (here / ".." / (under ? dir.substr(prefix.size() + 1) : std::string("lib/slurm")) / name)
              .lexically_normal()
              .string());
      out.push_back((fs::path(dir) / name).string());
      break;
    }
    case Kind::debian: {
      out.push_back("/usr/bin/" + name);  // Debian's first (its python3 has python3-torch)
      const char* path = std::getenv("PATH");
      std::stringstream dirs(path ? path : "/usr/bin:/bin");
      for (std::string dir; std::getline(dirs, dir, ':');) {
        if (!dir.empty()) out.push_back((fs::path(dir) / name).string());
      }
      break;
    }
  }
  return out;
}

std::optional<std::string> find_peer(const std::string& name) {
  const Kind kind = kind_of(name);
  for (const std::string& candidate : peer_candidates(name)) {
    if (usable(candidate, kind)) return candidate;
  }
  return std::nullopt;
}

std::string missing_peer_message(const std::string& name) {
  std::string benchmarks = "?", how = "see bench/";
  for (const Peer& p : peers()) {
    if (p.name == name) {
      benchmarks = p.benchmarks;
      how = p.how_to_install;
    }
  }
  std::string looked;
  if (kind_of(name) == Kind::debian) {
    looked = "PATH";
  } else {
    for (const std::string& c : peer_candidates(name)) looked += (looked.empty() ? "" : ", ") + c;
  }
  return "peer " + name + " of slipway-bench " + benchmarks + " is missing (looked in " + looked + "): " + how;
}

int print_peers() {
  int status = 0;
  std::printf("%-24s %-20s %-8s %s\n", "PEER", "BENCHMARKS", "STATUS", "PATH, OR HOW TO INSTALL");
  for (const Peer& p : peers()) {
    if (const auto path = find_peer(p.name)) {
      std::printf("%-24s %-20s %-8s %s\n", p.name.c_str(), p.benchmarks.c_str(), "found", path->c_str());
    } else {
      std::printf("%-24s %-20s %-8s %s\n", p.name.c_str(), p.benchmarks.c_str(), "MISSING",
                  missing_peer_message(p.name).c_str());
      status = 1;
    }
  }
  return status;
}

}  // namespace slipway::bench
