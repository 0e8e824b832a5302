// The Slurm controller's step ledger (launchers/src/step_ledger.hpp): unit
// hosts and placeholders, lost hosts, what running steps and starting units
// hold, and the host with room for a resubmitted unit, now or once ended
// steps finish.
#include <catch2/catch.hpp>

#include <map>

#include "slipway/core/plan.hpp"
#include "slipway/launch/launch_units.hpp"
#include "slipway/launch/slurm_allocation.hpp"
#include "slipway/launch/slurm_steps.hpp"
#include "step_ledger.hpp"

using namespace slipway;
using Holding = launch::StepLedger::Holding;

namespace {

// Three replicas of `a` (4 cpus each), one on each of three 4-cpu hosts.
core::Plan three_full_hosts() {
  auto topology = core::parse_topology(R"(
[program]
name = "p"
[node.a]
command = "true"
replicas = 3
cpus = 4
)",
                                       "test.toml");
  REQUIRE(topology.ok());
  launch::SlurmJob job{"42", {}};
  launch::SlurmComponent c;
  c.job_id = "42";
  c.hosts = {"fn1", "fn2", "fn3"};
  c.cpus = {4, 4, 4};
  job.components.push_back(c);
  auto planned = core::make_plan(*topology.program, launch::allocation_of(job));
  REQUIRE(planned.ok());
  return *planned.plan;
}

struct Ledger {
  core::Plan plan = three_full_hosts();
  std::vector<launch::LaunchUnit> units = launch::launch_units(plan);
  std::map<std::size_t, Holding> holding;  // absent: nothing
  launch::StepLedger ledger{plan, units, "42", [this](std::size_t unit) {
                              auto it = holding.find(unit);
                              return it == holding.end() ? Holding::nothing : it->second;
                            }};
  launch::StepRequest step(std::size_t unit) const { return launch::step_for_unit(plan, units[unit]); }
  // `unit` runs in a step of its own on its host, as process `pid`.
  void running(std::size_t unit, pid_t pid) {
    launch::StepRequest s = step(unit);
    s.host = ledger.host(unit);
    ledger.step_started(pid, s, true);
    holding[unit] = Holding::running;
  }
};

}  // namespace

TEST_CASE("units start on their planned hosts, and unhost gives a placeholder") {
  Ledger l;
  REQUIRE(l.ledger.hosts() == std::vector<std::string>{"fn1", "fn2", "fn3"});
  CHECK_FALSE(l.ledger.unhosted(0));
  l.ledger.unhost(0);
  CHECK(l.ledger.host(0) == "satellite:a.0");
  CHECK(l.ledger.unhosted(0));
  l.ledger.swap_hosts(0, 1);
  CHECK(l.ledger.host(1) == "satellite:a.0");
  CHECK(l.ledger.unhosted(1));
  CHECK_FALSE(l.ledger.unhosted(0));
  l.ledger.set_host(1, "fn3");
  CHECK_FALSE(l.ledger.unhosted(1));
}

TEST_CASE("a lost unit finds room only where steps have ended") {
  Ledger l;
  l.running(1, 101);
  l.running(2, 102);
  l.ledger.lose_host_of(0);
  CHECK(l.ledger.lost("fn1"));
  CHECK_FALSE(l.ledger.host_with_room(0, l.step(0), false));
  CHECK(l.ledger.no_room_in_job(l.step(0)) == "no host of job 42 has room for a.0 (4 cpus, 0 gpus); lost hosts: fn1");

  // a.2 has ended, its step still runs: room once it finishes, not now.
  l.holding.erase(2);
  CHECK(l.ledger.host_with_room(0, l.step(0), false) == "fn3");
  CHECK_FALSE(l.ledger.host_with_room(0, l.step(0), true));
  l.ledger.step_ended(102);
  CHECK(l.ledger.host_with_room(0, l.step(0), true) == "fn3");

  // A unit starting again on fn3 takes its room now and later.
  l.holding[2] = Holding::starting;
  CHECK_FALSE(l.ledger.host_with_room(0, l.step(0), false));
}

TEST_CASE("placeholders and lost hosts are never chosen, and a unit's own host is preferred") {
  Ledger l;
  CHECK(l.ledger.host_with_room(1, l.step(1), true) == "fn2");
  l.ledger.lose_host_of(1);
  CHECK(l.ledger.host_with_room(1, l.step(1), true) == "fn1");
  l.running(0, 100);
  CHECK(l.ledger.host_with_room(1, l.step(1), true) == "fn3");
  l.ledger.unhost(2);  // a.2 holds no host of the job now, and fn3 stays free
  l.running(2, 102);
  CHECK(l.ledger.host_with_room(1, l.step(1), false) == "fn3");
}

TEST_CASE("steps in satellite jobs and steps that lost a unit") {
  Ledger l;
  launch::StepRequest s = l.step(0);
  s.job_id = "77";
  l.ledger.step_started(200, s, false);
  CHECK(l.ledger.steps_in_job("77"));
  CHECK_FALSE(l.ledger.steps_in_job("42"));
  l.ledger.step_lost_a_unit(200);
  CHECK(l.ledger.take_step_with_losses(200));
  CHECK_FALSE(l.ledger.take_step_with_losses(200));
  l.ledger.step_lost_a_unit(200);
  l.ledger.step_ended(200);
  CHECK_FALSE(l.ledger.steps_in_job("77"));
  CHECK_FALSE(l.ledger.take_step_with_losses(200));
}
