// The Slurm controller's satellite jobs against stand-in sbatch and scancel
// commands on PATH (scripts that record their arguments): a replacement
// asked for when no host has room is submitted with sbatch and bound to its
// unit, and cancelling it by the book's own id string scancels that id (the
// book forgets the job first, which destroys that string).
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "../../lib/temp_dir.hpp"
#include "launcher_loop.hpp"
#include "loop_fixture.hpp"
#include "satellite_controller.hpp"
#include "slipway/launch/launch_units.hpp"
#include "slipway/launch/slurm_allocation.hpp"
#include "slipway/launch/slurm_steps.hpp"
#include "step_ledger.hpp"

using namespace slipway;

namespace {

// A loop with nothing elastic, whose units are neither starting nor running.
class IdleLoop : public launch::SatelliteLoop {
 public:
  explicit IdleLoop(const core::Plan& plan) : plan_(plan) {}
  std::vector<std::string> elastic_node_names() const override { return {}; }
  std::uint32_t satellites_wanted(const std::string&) const override { return 0; }
  std::size_t satellite_granted(const std::string&, const std::string&) override { return 0; }
  std::optional<std::size_t> satellite_releasable(const std::string&) override { return std::nullopt; }
  void satellites_abandoned(const std::string&, const std::string&) override {}
  bool waiting_for_host(std::size_t) const override { return false; }
  void host_found(std::size_t) override {}
  void host_not_found(std::size_t, const std::string&) override {}
  bool unit_starting(std::size_t) const override { return false; }
  bool unit_active(std::size_t) const override { return false; }
  std::size_t unit_of_task(const std::string&) const override { return 0; }
  const core::Plan& live_plan() const override { return plan_; }
  void record_event(const std::string& kind, const std::string&, const std::string&,
                    const std::string&) override {
    events.push_back(kind);
  }
  std::vector<std::string> events;

 private:
  const core::Plan& plan_;
};

// An executable script `name` in `dir` that appends its arguments to
// dir/name.args, then prints `output`.
void stand_in(const std::string& dir, const std::string& name, const std::string& output) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << "#!/bin/sh\necho \"$@\" >> '" << path << ".args'\necho '" << output << "'\n";
  REQUIRE(::chmod(path.c_str(), 0755) == 0);
}

}  // namespace

TEST_CASE("a replacement satellite job is submitted with sbatch and scancelled by its own id") {
  testing::LoopFixture fixture(R"(
[program]
name = "replaced"
elastic = { satellites = 1, satellite_wait = 120 }
[node.worker]
command = "true"
)",
                               "replaced");
  test::TempDir bin("slipway-satellite-commands");
  stand_in(bin.path, "sbatch", "4242");
  stand_in(bin.path, "scancel", "");
  const std::string path = ::getenv("PATH");
  REQUIRE(::setenv("PATH", (bin.path + ":" + path).c_str(), 1) == 0);

  const core::Plan plan = fixture.plan();
  const std::vector<launch::LaunchUnit> units = launch::launch_units(plan);
  const launch::RunDirectory run_dir = fixture.run_dir();
  launch::SlurmJob job{"42", {}};
  job.components.push_back({});
  job.components.back().partition = "debug";
  launch::StepLedger ledger(plan, units, job.job_id, [](std::size_t) { return launch::StepLedger::Holding::nothing; });
  IdleLoop loop(plan);
  launch::SatelliteController satellites(plan, units, job, run_dir, "/usr/bin/slipway", ledger, loop);

  const launch::StepRequest step = launch::step_for_unit(plan, units[0]);
  CHECK_THROWS_AS(satellites.wait_for_replacement(0, step, "its host is lost"), launch::WaitForHost);
  const auto* replacement = satellites.of_unit(0);
  REQUIRE(replacement);
  CHECK(replacement->id == "4242");
  CHECK(replacement->replacement);
  CHECK(ledger.unhosted(0));
  CHECK(loop.events == std::vector<std::string>{"satellite_request"});
  CHECK(test::read_all(bin.path + "/sbatch.args").find("--job-name=replaced:satellite:worker") != std::string::npos);

  satellites.cancel(replacement->id);
  CHECK(test::read_all(bin.path + "/scancel.args") == "4242\n");
  CHECK_FALSE(satellites.of_unit(0));
  REQUIRE(::setenv("PATH", path.c_str(), 1) == 0);
}
