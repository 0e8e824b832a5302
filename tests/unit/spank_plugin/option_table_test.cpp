// Slurm 22.05's option table as getopt_long resolves it.
#include <catch2/catch.hpp>

#include "slipway/spank/option_table.hpp"

using namespace slipway::spank;

TEST_CASE("long options resolve by exact name or unambiguous prefix", "[spank][options]") {
  auto nodes = find_long_option(Tool::srun, "nodes");
  REQUIRE(nodes);
  CHECK(nodes->kind == ArgKind::required);
  CHECK(nodes->short_name == 'N');

  auto prefix = find_long_option(Tool::srun, "ntasks-per-n");
  REQUIRE(prefix);
  CHECK(prefix->name == "ntasks-per-node");

  // "mem" is exact although mem-bind, mem-per-cpu, mem-per-gpu share it.
  auto mem = find_long_option(Tool::srun, "mem");
  REQUIRE(mem);
  CHECK(mem->name == "mem");
}

TEST_CASE("a prefix matching options that take values differently is unresolved",
          "[spank][options]") {
  // "ex": exact (none), exclude (required), exclusive (optional), export...
  CHECK_FALSE(find_long_option(Tool::srun, "ex"));
  CHECK_FALSE(find_long_option(Tool::srun, "no-such-option"));
  CHECK_FALSE(find_long_option(Tool::srun, ""));
}

TEST_CASE("options depend on the tool", "[spank][options]") {
  CHECK(find_long_option(Tool::srun, "mpi"));
  CHECK_FALSE(find_long_option(Tool::sbatch, "mpi"));
  CHECK(find_long_option(Tool::sbatch, "wrap"));
  CHECK_FALSE(find_long_option(Tool::srun, "wrap"));

  // --wait takes a value in srun, none in sbatch; -K differs in salloc.
  CHECK(find_long_option(Tool::srun, "wait")->kind == ArgKind::required);
  CHECK(find_long_option(Tool::sbatch, "wait")->kind == ArgKind::none);
  CHECK(find_short_option(Tool::salloc, 'K')->name == "kill-command");
  CHECK(find_short_option(Tool::srun, 'K')->name == "kill-on-bad-exit");
}

TEST_CASE("extra (plugin) options join the look-up", "[spank][options]") {
  const OptionSpec extra[] = {{"program", '\0', ArgKind::required, tool_bit(Tool::srun)}};
  CHECK_FALSE(find_long_option(Tool::srun, "program"));
  auto found = find_long_option(Tool::srun, "prog", extra);
  REQUIRE(found);
  CHECK(found->name == "program");
}

TEST_CASE("the tool is read from the executable's base name", "[spank][options]") {
  CHECK(tool_from_path("/usr/bin/srun") == Tool::srun);
  CHECK(tool_from_path("sbatch") == Tool::sbatch);
  CHECK(tool_from_path("/opt/slurm/bin/salloc") == Tool::salloc);
  CHECK_FALSE(tool_from_path("/usr/bin/scrontab"));
  CHECK_FALSE(tool_from_path("/usr/bin/srun2"));
  CHECK(tool_name(Tool::salloc) == "salloc");
}
