// The salloc line of `slipway launch` outside an allocation: the user's own
// srun words kept, and only what they leave out added (a host count the
// user named is never reduced by too few tasks).
#include <catch2/catch.hpp>

#include "slipway/core/topology.hpp"
#include "slipway/launch/salloc_arguments.hpp"

using namespace slipway;
using Words = std::vector<std::string>;

namespace {

// Two workers of 3 CPUs (the issue's program) and one 1-CPU client.
core::Program program() {
  auto topology = core::parse_topology(R"(
[program]
name = "p"
[node.worker]
command = "true"
replicas = 2
cpus = 3
[node.client]
command = "true"
)",
                                       "test.toml");
  REQUIRE(topology.ok());
  return *topology.program;
}

Words salloc(const Words& user) { return launch::salloc_arguments(program(), user); }

Words with_prefix(Words rest) {
  rest.insert(rest.begin(), {"--job-name=p", "--no-kill"});
  return rest;
}

}  // namespace

TEST_CASE("without srun arguments the program's shapes are the allocation") {
  CHECK(salloc({}) == with_prefix({"--ntasks=2", "--cpus-per-task=3", ":", "--ntasks=1",
                                   "--cpus-per-task=1"}));
}

TEST_CASE("the user's words are kept and the tasks and CPUs they leave out are added") {
  CHECK(salloc({"-p", "cpu"}) == with_prefix({"-p", "cpu", "--ntasks=3", "--cpus-per-task=3"}));
}

TEST_CASE("a host count the user names is never reduced by fewer tasks") {
  // Slurm runs at least one task per host: --ntasks=3 on -N5 would drop two.
  for (const Words& nodes : {Words{"-N5"}, Words{"-N", "5"}, Words{"--nodes=5"}, Words{"--nodes", "5"},
                             Words{"-N2-5"}, Words{"--nodes=3-5"}}) {
    Words expected = nodes;
    expected.insert(expected.end(), {"--ntasks=5", "--cpus-per-task=3"});
    CHECK(salloc(nodes) == with_prefix(expected));
  }
  CHECK(salloc({"-w", "fn[1-5]"}) == with_prefix({"-w", "fn[1-5]", "--ntasks=5", "--cpus-per-task=3"}));
  CHECK(salloc({"--nodelist=a,b,c,d"}) ==
        with_prefix({"--nodelist=a,b,c,d", "--ntasks=4", "--cpus-per-task=3"}));
  // A host count below the tasks leaves the tasks as they are.
  CHECK(salloc({"-N2", "--exclusive"}) ==
        with_prefix({"-N2", "--exclusive", "--ntasks=3", "--cpus-per-task=3"}));
  // A node list in a file is Slurm's to read.
  CHECK(salloc({"--nodelist=/etc/hosts.list"}) ==
        with_prefix({"--nodelist=/etc/hosts.list", "--ntasks=3", "--cpus-per-task=3"}));
}

TEST_CASE("tasks or CPUs the user sized are not added") {
  CHECK(salloc({"-N3", "-n3", "-c3"}) == with_prefix({"-N3", "-n3", "-c3"}));
  CHECK(salloc({"--ntasks=6"}) == with_prefix({"--ntasks=6"}));
  CHECK(salloc({"-c", "4"}) == with_prefix({"-c", "4", "--ntasks=3"}));
  // Tasks per node with a host count: Slurm derives the tasks.
  CHECK(salloc({"-N3", "--ntasks-per-node=1"}) ==
        with_prefix({"-N3", "--ntasks-per-node=1", "--cpus-per-task=3"}));
  // Tasks per node alone: as many hosts as the program's tasks need.
  CHECK(salloc({"--ntasks-per-node=2"}) ==
        with_prefix({"--ntasks-per-node=2", "--ntasks=3", "--cpus-per-task=3"}));
}

TEST_CASE("salloc arguments that ask for GPUs or other GRES are recognised") {
  using launch::requests_gres;
  CHECK_FALSE(requests_gres({"--job-name=p", "--no-kill", "-N3", "-n12", "-p", "cpu"}));
  CHECK_FALSE(requests_gres({"--ntasks=2", "--cpus-per-task=4", "--mem-per-cpu=100M"}));
  CHECK(requests_gres({"--ntasks=1", "--gres=gpu:1"}));
  CHECK(requests_gres({"--gres", "nic:1"}));
  CHECK(requests_gres({"--gpus-per-node=2"}));
  CHECK(requests_gres({"-G", "2"}));
  CHECK(requests_gres({"--cpus-per-gpu=4"}));
}
