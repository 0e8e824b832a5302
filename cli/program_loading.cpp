// Loading a topology and reporting its problems (program_loading.hpp).
#include "program_loading.hpp"

#include <cstdio>

#include "program_paths.hpp"
#include "slipway/core/diagnostic.hpp"
#include "slipway/core/replay_config.hpp"

namespace slipway::cli {

std::optional<core::Program> load_program(const std::string& path) {
  core::TopologyResult topology = core::load_topology(path);
  for (const auto& d : topology.diagnostics) {
    std::fprintf(stderr, "%s\n", core::format_diagnostic(d).c_str());
  }
  if (!topology.ok()) return std::nullopt;
  core::set_replay_program(*topology.program, sibling_program(std::string(core::kReplayProgram)));
  return std::move(topology.program);
}

}  // namespace slipway::cli
