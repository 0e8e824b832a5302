// Prometheus file_sd targets of a running program (docs/observe.md): a
// site's Prometheus given `file_sd_configs: [{files: [ROOT/.prometheus-*.json]}]`
// finds every program running under that run root.
//
// Contract: the constructor writes RUN/prometheus/targets.json and
// ROOT/.prometheus-RUN_NAME.json (a hidden file, not a directory: ROOT
// holds only run directories; atomically, 0600 files in 0700 directories:
// readable by the user's own Prometheus), each one target
// group [{"targets": [TARGET], "labels": {"program", "run"}}]; the
// destructor removes both. A file that cannot be written is said once on
// stderr; the program runs on.
#pragma once

#include <string>

namespace slipway::observe {

class PrometheusTargets {
 public:
  // `target`: "HOST:PORT" as Prometheus should scrape it.
  PrometheusTargets(const std::string& run_directory, const std::string& run_root, const std::string& program,
                    const std::string& target);
  ~PrometheusTargets();
  PrometheusTargets(const PrometheusTargets&) = delete;
  PrometheusTargets& operator=(const PrometheusTargets&) = delete;

  const std::string& root_file() const { return root_file_; }

 private:
  std::string run_file_;
  std::string root_file_;
};

}  // namespace slipway::observe
