// The templates in jobscripts/templates/ are what `slipway sbatch --dry-run`
// writes for their topologies (with `slipway` from PATH and the topology
// named relative to the script), and their topologies are valid: the copies
// people start from never drift from the generator.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "slipway/core/topology.hpp"
#include "slipway/jobscripts/batch_script.hpp"

using namespace slipway;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("the templates are the generator's output", "[jobscripts][templates]") {
  const std::string dir = SLIPWAY_JOBSCRIPTS_TEMPLATES;
  for (const std::string name : {"actor-learner", "ddp-multinode", "mpi-solver"}) {
    INFO(name);
    const auto topology = core::load_topology(dir + "/" + name + ".toml");
    for (const auto& d : topology.diagnostics) UNSCOPED_INFO(core::format_diagnostic(d));
    REQUIRE(topology.ok());
    jobscripts::BatchOptions options;
    options.slipway_command = "slipway";
    options.topology_path = name + ".toml";
    options.requeue = name == "actor-learner";
    const auto script = jobscripts::render_batch_script(*topology.program, options);
    REQUIRE(script.text);
    CHECK(*script.text == read_file(dir + "/" + name + ".sbatch"));
  }
}
