// file_sd target files (prometheus_targets.hpp).
#include "slipway/observe/prometheus_targets.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

namespace slipway::observe {
namespace {

bool write_atomically(const std::string& directory, const std::string& path, const std::string& content) {
  if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) return false;
  const std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());
  const mode_t old = ::umask(077);
  bool ok = false;
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << content;
    ok = static_cast<bool>(out.flush());
  }
  ::umask(old);
  if (ok && ::rename(tmp.c_str(), path.c_str()) == 0) return true;
  ::unlink(tmp.c_str());
  return false;
}

}  // namespace

PrometheusTargets::PrometheusTargets(const std::string& run_directory, const std::string& run_root,
                                     const std::string& program, const std::string& target) {
  const std::string run_name = run_directory.substr(run_directory.rfind('/') + 1);
  const nlohmann::json groups = nlohmann::json::array(
      {{{"targets", {target}}, {"labels", {{"program", program}, {"run", run_name}}}}});
  const std::string content = groups.dump(2) + "\n";
  run_file_ = run_directory + "/prometheus/targets.json";
  root_file_ = run_root + "/.prometheus-" + run_name + ".json";
  for (auto* file : {&run_file_, &root_file_}) {
    const std::string directory = file->substr(0, file->rfind('/'));
    if (!write_atomically(directory, *file, content)) {
      std::fprintf(stderr, "slipway: warning: the Prometheus target file %s cannot be written: %s\n",
                   file->c_str(), std::strerror(errno));
      file->clear();
    }
  }
}

PrometheusTargets::~PrometheusTargets() {
  for (const std::string& file : {run_file_, root_file_}) {
    if (!file.empty()) ::unlink(file.c_str());
  }
}

}  // namespace slipway::observe
