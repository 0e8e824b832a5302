// Scanning srun/sbatch/salloc command lines like their getopt_long does.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "slipway/spank/argv_scan.hpp"

using namespace slipway::spank;
using Words = std::vector<std::string>;

namespace {
ArgvScan scan(Tool tool, const Words& words) { return scan_tool_argv(tool, words); }
}  // namespace

TEST_CASE("the option --program is taken out in every spelling", "[spank][scan]") {
  for (const Words& words : {Words{"-N3", "--program=t.toml", "-l"},
                             Words{"-N3", "--program", "t.toml", "-l"},
                             Words{"-N3", "--prog=t.toml", "-l"}}) {
    const auto s = scan(Tool::srun, words);
    CHECK(s.programs == Words{"t.toml"});
    CHECK(s.passthrough == Words{"-N3", "-l"});
    CHECK_FALSE(s.operand);
  }
}

TEST_CASE("values of options are not taken for the command", "[spank][scan]") {
  const auto s = scan(Tool::srun, {"-N", "3", "--mpi", "pmix", "-p", "gpu", "--program=t.toml",
                                   "--time", "10", "-lN", "2", "-Jname"});
  CHECK_FALSE(s.operand);
  CHECK(s.passthrough ==
        Words{"-N", "3", "--mpi", "pmix", "-p", "gpu", "--time", "10", "-lN", "2", "-Jname"});
}

TEST_CASE("a value that looks like --program belongs to its option", "[spank][scan]") {
  const auto s = scan(Tool::srun, {"--comment", "--program=x", "--program=t.toml"});
  CHECK(s.programs == Words{"t.toml"});
  CHECK(s.passthrough == Words{"--comment", "--program=x"});
}

TEST_CASE("optional values only attach to their word", "[spank][scan]") {
  // --exclusive takes an optional value: "user" here is the command.
  const auto s = scan(Tool::srun, {"--exclusive", "user", "--program=t.toml"});
  REQUIRE(s.operand);
  CHECK(*s.operand == "user");
  CHECK(s.programs.empty());  // after the command: the command's own words
}

TEST_CASE("the first operand ends the options", "[spank][scan]") {
  const auto s = scan(Tool::srun, {"-N2", "--program=t.toml", "hostname", "--program=other"});
  REQUIRE(s.operand);
  CHECK(*s.operand == "hostname");
  CHECK(s.programs == Words{"t.toml"});
  CHECK(s.passthrough == Words{"-N2", "hostname", "--program=other"});
}

TEST_CASE("a lone -- ends the options", "[spank][scan]") {
  auto s = scan(Tool::srun, {"--program=t.toml", "--", "cmd"});
  REQUIRE(s.operand);
  CHECK(*s.operand == "cmd");
  s = scan(Tool::srun, {"--program=t.toml", "--"});
  CHECK_FALSE(s.operand);
  CHECK(s.passthrough.empty());
}

TEST_CASE("':' starts another heterogeneous component", "[spank][scan]") {
  const auto s = scan(Tool::srun, {"-n1", "--program=t.toml", ":", "-n2", "cmd"});
  REQUIRE(s.operand);
  CHECK(s.operand_is_separator);
}

TEST_CASE("help, a missing value and --wrap are noticed", "[spank][scan]") {
  CHECK(scan(Tool::srun, {"--program=t", "--help"}).help_requested);
  CHECK(scan(Tool::srun, {"--program=t", "-h"}).help_requested);
  CHECK(scan(Tool::sbatch, {"--program=t", "--usage"}).help_requested);
  CHECK(scan(Tool::srun, {"--program=t", "-V"}).help_requested);
  CHECK_FALSE(scan(Tool::srun, {"--program=t", "-v"}).help_requested);

  const auto missing = scan(Tool::srun, {"--program=t", "-N"});
  REQUIRE(missing.missing_value);
  CHECK(*missing.missing_value == "-N");

  CHECK(scan(Tool::sbatch, {"--program=t", "--wrap=hostname"}).wraps_command);
}

TEST_CASE("sbatch's script is its operand", "[spank][scan]") {
  const auto s = scan(Tool::sbatch, {"-N2", "--wait", "--program=t.toml", "job.sh", "arg"});
  REQUIRE(s.operand);
  CHECK(*s.operand == "job.sh");
  CHECK(s.passthrough == Words{"-N2", "--wait", "job.sh", "arg"});
}

TEST_CASE("a lone '-' is an operand", "[spank][scan]") {
  const auto s = scan(Tool::srun, {"--program=t", "-"});
  REQUIRE(s.operand);
  CHECK(*s.operand == "-");
}
