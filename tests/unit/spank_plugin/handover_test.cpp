// What srun/sbatch/salloc --program exec, and what they refuse.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "slipway/core/contract.hpp"
#include "slipway/spank/handover.hpp"

using namespace slipway::spank;
using Words = std::vector<std::string>;

namespace {

Handover decide(Tool tool, Words cmdline, bool guard = false) {
  HandoverInput in;
  in.tool = tool;
  in.cmdline = std::move(cmdline);
  in.slipway_bin = "/opt/slipway/bin/slipway";
  in.tool_exe = "/usr/bin/salloc";
  in.guard_set = guard;
  return decide_handover(in);
}

}  // namespace

TEST_CASE("srun --program execs slipway launch with one --srun-arg per word", "[spank][handover]") {
  const auto h = decide(Tool::srun, {"srun", "-N", "4", "--mpi=pmix", "--program=impala.toml", "-l"});
  REQUIRE(h.kind == Handover::Kind::exec);
  CHECK(h.argv == Words{"/opt/slipway/bin/slipway", "launch", "--srun-arg=-N", "--srun-arg=4",
                        "--srun-arg=--mpi=pmix", "--srun-arg=-l", "impala.toml"});
}

TEST_CASE("srun --program alone execs slipway launch FILE", "[spank][handover]") {
  const auto h = decide(Tool::srun, {"srun", "--program", "t.toml"});
  REQUIRE(h.kind == Handover::Kind::exec);
  CHECK(h.argv == Words{"/opt/slipway/bin/slipway", "launch", "t.toml"});
}

TEST_CASE("sbatch --program execs slipway sbatch with --sbatch-arg", "[spank][handover]") {
  const auto h = decide(Tool::sbatch, {"sbatch", "-t", "60", "--program=t.toml", "--requeue"});
  REQUIRE(h.kind == Handover::Kind::exec);
  CHECK(h.argv == Words{"/opt/slipway/bin/slipway", "sbatch", "--sbatch-arg=-t",
                        "--sbatch-arg=60", "--sbatch-arg=--requeue", "t.toml"});
}

TEST_CASE("salloc --program re-execs salloc with slipway launch as its command",
          "[spank][handover]") {
  const auto h = decide(Tool::salloc, {"salloc", "-N3", "--program=t.toml"});
  REQUIRE(h.kind == Handover::Kind::exec);
  CHECK(h.argv == Words{"/usr/bin/salloc", "-N3", "/opt/slipway/bin/slipway", "launch", "t.toml"});
}

TEST_CASE("a topology path starting with '-' cannot pass for an option", "[spank][handover]") {
  const auto h = decide(Tool::srun, {"srun", "--program=-odd.toml"});
  REQUIRE(h.kind == Handover::Kind::exec);
  CHECK(h.argv.back() == "./-odd.toml");
}

TEST_CASE("no --program on the command line: nothing to do", "[spank][handover]") {
  CHECK(decide(Tool::sbatch, {"sbatch", "job.sh"}).kind == Handover::Kind::absent);
  CHECK(decide(Tool::srun, {"srun", "hostname", "--program=x"}).kind == Handover::Kind::absent);
  CHECK(decide(Tool::srun, {}).kind == Handover::Kind::absent);
}

TEST_CASE("help asked with --program lets the tool answer", "[spank][handover]") {
  CHECK(decide(Tool::srun, {"srun", "--program=t", "--help"}).kind == Handover::Kind::help);
}

TEST_CASE("refusals say what to do", "[spank][handover]") {
  auto h = decide(Tool::srun, {"srun", "-N2", "--program=t.toml", "hostname"});
  REQUIRE(h.kind == Handover::Kind::error);
  CHECK_THAT(h.message, Catch::Contains("takes no command: remove 'hostname'"));

  h = decide(Tool::sbatch, {"sbatch", "--program=t.toml", "job.sh"});
  REQUIRE(h.kind == Handover::Kind::error);
  CHECK_THAT(h.message, Catch::Contains("takes no script: remove 'job.sh'"));

  h = decide(Tool::sbatch, {"sbatch", "--program=t.toml", "--wrap=hostname"});
  REQUIRE(h.kind == Handover::Kind::error);
  CHECK_THAT(h.message, Catch::Contains("remove --wrap"));

  h = decide(Tool::srun, {"srun", "-n1", "--program=t.toml", ":", "-n2", "b"});
  REQUIRE(h.kind == Handover::Kind::error);
  CHECK_THAT(h.message, Catch::Contains("heterogeneous"));

  h = decide(Tool::srun, {"srun", "--program=a.toml", "--program=b.toml"});
  REQUIRE(h.kind == Handover::Kind::error);
  CHECK_THAT(h.message, Catch::Contains("more than once ('a.toml', 'b.toml')"));

  h = decide(Tool::srun, {"srun", "--program="});
  REQUIRE(h.kind == Handover::Kind::error);
  CHECK_THAT(h.message, Catch::Contains("--program=FILE"));

  h = decide(Tool::srun, {"srun", "--program=t.toml", "--time"});
  REQUIRE(h.kind == Handover::Kind::error);
  CHECK_THAT(h.message, Catch::Contains("'--time' needs a value"));
}

TEST_CASE("the re-exec guard refuses nested programs", "[spank][handover]") {
  const auto h = decide(Tool::srun, {"srun", "--program=t.toml"}, true);
  REQUIRE(h.kind == Handover::Kind::error);
  CHECK_THAT(h.message, Catch::Contains(slipway::core::env::kSpankReexec));
}

TEST_CASE("no slipway executable is an error", "[spank][handover]") {
  HandoverInput in;
  in.tool = Tool::srun;
  in.cmdline = {"srun", "--program=t.toml"};
  const auto h = decide_handover(in);
  REQUIRE(h.kind == Handover::Kind::error);
  CHECK_THAT(h.message, Catch::Contains("slipway_bin="));
}
