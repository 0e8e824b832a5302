// ProcFiles: the ProcSource (process_usage.hpp) over this host's /proc.
//
// Contract: every read is bounded (a stat line at kMaxStatBytes, a
// children file at kMaxChildrenBytes, a thread listing at the limit
// given); a process that is gone, or a file that cannot be read, gives
// nothing. Nothing is cached between calls.
#pragma once

#include <string>

#include "slipway/exec/process_usage.hpp"

namespace slipway::exec {

class ProcFiles final : public ProcSource {
 public:
  static constexpr std::size_t kMaxStatBytes = 4096;
  static constexpr std::size_t kMaxChildrenBytes = 65536;

  explicit ProcFiles(std::string root = "/proc") : root_(std::move(root)) {}

  std::optional<std::string> stat(pid_t pid) override;
  std::vector<pid_t> threads(pid_t pid, std::size_t limit) override;
  std::optional<std::string> children(pid_t pid, pid_t tid) override;

 private:
  std::string root_;
};

}  // namespace slipway::exec
