// srun command lines of the Slurm controller: one step per unit, or one
// step for consecutive replicas of a node on one host (one agent running
// them all, or one agent each for an MPI node).
#include <catch2/catch.hpp>

#include <algorithm>

#include "slipway/core/plan.hpp"
#include "slipway/launch/launch_units.hpp"
#include "slipway/launch/slurm_allocation.hpp"
#include "slipway/launch/slurm_steps.hpp"

using namespace slipway;

namespace {

core::Plan plan_on_three_hosts(const char* toml, std::uint32_t cpus_per_host = 4) {
  auto topology = core::parse_topology(toml, "test.toml");
  for (const auto& d : topology.diagnostics) UNSCOPED_INFO(core::format_diagnostic(d));
  REQUIRE(topology.ok());
  launch::SlurmJob job{"42", {}};
  launch::SlurmComponent c;
  c.job_id = "42";
  c.hosts = {"fn1", "fn2", "fn3"};
  c.cpus = {cpus_per_host, cpus_per_host, cpus_per_host};
  c.gpus_per_host = 2;
  job.components.push_back(c);
  auto planned = core::make_plan(*topology.program, launch::allocation_of(job));
  REQUIRE(planned.ok());
  return *planned.plan;
}

std::vector<std::size_t> all_units(const std::vector<launch::LaunchUnit>& units) {
  std::vector<std::size_t> all(units.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

std::vector<std::string> unit_hosts(const core::Plan& plan, const std::vector<launch::LaunchUnit>& units) {
  std::vector<std::string> hosts;
  for (const auto& u : units) hosts.push_back(plan.hosts.at(u.host).name);
  return hosts;
}

bool has(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

}  // namespace

TEST_CASE("one unit is one task on its host") {
  auto plan = plan_on_three_hosts(R"(
[program]
name = "p"
[node.a]
command = "true"
mem = "1G"
gpus = 1
)");
  auto units = launch::launch_units(plan);
  auto step = launch::step_for_unit(plan, units[0]);
  step.job_id = "42";
  step.agent_argv = {"slipway-exec", "--task", "a.0"};
  auto argv = launch::srun_command(step);
  CHECK(argv.front() == "srun");
  for (const char* arg : {"--jobid=42", "--nodes=1", "--ntasks=1", "--nodelist=fn1", "--cpus-per-task=1",
                          "--exact", "--kill-on-bad-exit=0", "--job-name=p:a.0", "--mpi=none",
                          "--mem=1024M", "--gres=gpu:1"}) {
    CHECK(has(argv, arg));
  }
  CHECK_FALSE(has(argv, "/bin/sh"));
  CHECK(std::vector<std::string>(argv.end() - 3, argv.end()) == step.agent_argv);
  CHECK(launch::step_environment(step).empty());
}

TEST_CASE("replicas of a node on one host starting together share one step") {
  auto plan = plan_on_three_hosts(R"(
[program]
name = "bench"
[node.t]
command = "true"
replicas = 9
mem = "2G"
cpus = 1
[node.gpu]
command = "true"
gpus = 1
replicas = 2
[node.u]
command = "true"
replicas = 1
)");
  auto units = launch::launch_units(plan);
  REQUIRE(units.size() == 12);
  auto hosts = unit_hosts(plan, units);
  REQUIRE(hosts[0] == "fn1");
  REQUIRE(hosts[3] == "fn1");
  REQUIRE(hosts[4] == "fn2");
  REQUIRE(hosts[8] == "fn3");
  auto groups = launch::group_into_steps(plan, units, all_units(units), hosts);
  // t.0-3 on fn1, t.4-7 on fn2, t.8 on fn3 (with the rest); each GPU
  // replica alone; u.0 alone.
  REQUIRE(groups.size() == 6);
  CHECK(groups[0] == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(groups[1] == std::vector<std::size_t>{4, 5, 6, 7});
  CHECK(groups[2] == std::vector<std::size_t>{8});
  CHECK(groups[3] == std::vector<std::size_t>{9});
  CHECK(groups[4] == std::vector<std::size_t>{10});
  CHECK(groups[5] == std::vector<std::size_t>{11});

  auto step = launch::step_for_units(plan, units, groups[1], hosts);
  CHECK(step.one_agent);
  step.job_id = "42";
  step.agent_argv = {"slipway-exec", "--plan", "p.json"};
  auto argv = launch::srun_command(step);
  CHECK(has(argv, "--nodelist=fn2"));
  // One agent, holding the four replicas' CPUs and memory.
  CHECK(has(argv, "--ntasks=1"));
  CHECK(has(argv, "--cpus-per-task=4"));
  CHECK(has(argv, "--nodes=1"));
  CHECK(has(argv, "--mem=8192M"));
  CHECK(has(argv, "--job-name=bench:t.[4-7]"));
  auto agent = std::find(argv.begin(), argv.end(), "slipway-exec");
  REQUIRE(argv.end() - agent == 7);  // slipway-exec --plan p.json --node t --replicas 4-7
  CHECK(agent[3] == "--node");
  CHECK(agent[4] == "t");
  CHECK(agent[5] == "--replicas");
  CHECK(agent[6] == "4-7");
  CHECK_FALSE(has(argv, "/bin/sh"));
  CHECK(launch::step_environment(step).empty());
}

TEST_CASE("an MPI node's replicas sharing a step run an agent each") {
  auto plan = plan_on_three_hosts(R"(
[program]
name = "bench"
[node.t]
command = "true"
framework = "mpi"
replicas = 9
mem = "2G"
cpus = 1
)");
  auto units = launch::launch_units(plan);
  auto hosts = unit_hosts(plan, units);
  auto groups = launch::group_into_steps(plan, units, all_units(units), hosts);
  REQUIRE(groups.size() == 3);
  REQUIRE(groups[1] == std::vector<std::size_t>{4, 5, 6, 7});
  auto step = launch::step_for_units(plan, units, groups[1], hosts);
  CHECK_FALSE(step.one_agent);
  step.job_id = "42";
  step.agent_argv = {"slipway-exec", "--plan", "p.json"};
  auto argv = launch::srun_command(step);
  CHECK(has(argv, "--nodelist=fn2"));
  CHECK(has(argv, "--ntasks=4"));
  CHECK(has(argv, "--cpus-per-task=1"));
  CHECK(has(argv, "--mem-per-cpu=2048M"));
  auto agent = std::find(argv.begin(), argv.end(), "slipway-exec");
  REQUIRE(argv.end() - agent == 5);  // slipway-exec --plan p.json --node t
  CHECK(agent[3] == "--node");
  CHECK(agent[4] == "t");
  CHECK(launch::step_environment(step) ==
        std::vector<std::string>{"SLIPWAY_PROGRAM=bench", "SLIPWAY_REPLICA_BASE=4"});
}

TEST_CASE("a step holds at most kMaxTasksPerStep replicas") {
  auto plan = plan_on_three_hosts(R"(
[program]
name = "p"
[node.t]
command = "true"
replicas = 900
)", 300);
  auto units = launch::launch_units(plan);
  auto hosts = unit_hosts(plan, units);
  auto groups = launch::group_into_steps(plan, units, all_units(units), hosts);
  // 300 replicas per host: 128 + 128 + 44 on each.
  REQUIRE(groups.size() == 9);
  std::size_t total = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    CHECK(groups[g].size() == (g % 3 == 2 ? 44u : launch::kMaxTasksPerStep));
    CHECK(hosts[groups[g].front()] == hosts[groups[g].back()]);
    total += groups[g].size();
  }
  CHECK(total == 900);
  auto step = launch::step_for_units(plan, units, groups[1], hosts);
  step.job_id = "42";
  auto argv = launch::srun_command(step);
  CHECK(argv.back() == "128-255");
  CHECK(has(argv, "--cpus-per-task=128"));
  CHECK(has(argv, "--mem=0"));
}

TEST_CASE("a step holds consecutive replicas of one node only") {
  auto plan = plan_on_three_hosts(R"(
[program]
name = "p"
[node.t]
command = "true"
replicas = 3
[node.v]
command = "true"
replicas = 1
)");
  auto units = launch::launch_units(plan);
  REQUIRE(units.size() == 4);
  auto hosts = unit_hosts(plan, units);
  REQUIRE(hosts == std::vector<std::string>(4, "fn1"));
  // t.1 is retried on its own; t.0, t.2 and v.0 start together.
  auto groups = launch::group_into_steps(plan, units, {0, 2, 3}, hosts);
  REQUIRE(groups.size() == 3);
  CHECK(groups[0] == std::vector<std::size_t>{0});
  CHECK(groups[1] == std::vector<std::size_t>{2});
  CHECK(groups[2] == std::vector<std::size_t>{3});
  groups = launch::group_into_steps(plan, units, {1, 2, 3}, hosts);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0] == std::vector<std::size_t>{1, 2});
  auto step = launch::step_for_units(plan, units, groups[0], hosts);
  CHECK(step.replica_base == 1);
  CHECK(step.node == "t");
  CHECK(step.tasks == 2);
}

TEST_CASE("colocated units and memory that does not split per CPU get steps of their own") {
  auto plan = plan_on_three_hosts(R"(
[program]
name = "p"
[node.a]
command = "true"
replicas = 2
colocate = "g"
[node.b]
command = "true"
replicas = 2
colocate = "g"
[node.c]
command = "true"
replicas = 2
cpus = 3
mem = "1000M"
)");
  auto units = launch::launch_units(plan);
  REQUIRE(units.size() == 4);
  auto groups = launch::group_into_steps(plan, units, all_units(units), unit_hosts(plan, units));
  CHECK(groups.size() == 4);
}

TEST_CASE("a step never inherits an enclosing program's replica") {
  CHECK(launch::step_drops_variable("SLIPWAY_REPLICA=3"));
  CHECK(launch::step_drops_variable("SLIPWAY_REPLICA_BASE=0"));
  CHECK_FALSE(launch::step_drops_variable("SLIPWAY_REPLICAS=3"));
  CHECK_FALSE(launch::step_drops_variable("SLIPWAY_PROGRAM=x"));
}

TEST_CASE("the steps a program starts are counted before it starts, and MaxStepCount refuses too many") {
  auto plan = plan_on_three_hosts(R"(
[program]
name = "p"
[node.t]
command = "true"
replicas = 897
[node.g]
command = "true"
replicas = 2
gpus = 1
)", 300);
  auto units = launch::launch_units(plan);
  // 9 steps of t's replicas (at most 128 each, 3 per host) and one per GPU task.
  CHECK(launch::first_launch_steps(plan, units) == 11);
  CHECK_FALSE(launch::step_limit_problem(11, 11));
  CHECK_FALSE(launch::step_limit_problem(11, 40000));
  auto problem = launch::step_limit_problem(11, 10);
  REQUIRE(problem);
  CHECK(problem->find("starts 11 job steps") != std::string::npos);
  CHECK(problem->find("at most 10 (MaxStepCount") != std::string::npos);
}
