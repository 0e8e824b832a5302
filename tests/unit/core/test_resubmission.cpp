// host_for_resubmission: the previous host, another host after a loss,
// room counted by held steps then by running units, lost hosts never.
#include "core_test_support.hpp"
#include "slipway/core/resubmission.hpp"

using namespace slipway::core;
using slipway::core::test::hosts;

TEST_CASE("a resubmitted unit stays on its previous host while it has room", "[core][resubmit]") {
  const auto allocation = hosts(3, 4);
  Resubmission request;
  request.previous_host = "fn2";
  request.demand = {2, 0};
  request.held_now["fn1"] = {1, 0};
  CHECK(host_for_resubmission(allocation.hosts, request) == "fn2");
}

TEST_CASE("a resubmitted unit leaves a lost host for the first other host with room",
          "[core][resubmit]") {
  const auto allocation = hosts(3, 4);
  Resubmission request;
  request.previous_host = "fn1";
  request.demand = {3, 0};
  request.lost_hosts = {"fn1"};
  request.held_now["fn2"] = {2, 0};
  CHECK(host_for_resubmission(allocation.hosts, request) == "fn3");
}

TEST_CASE("a resubmitted unit with no room on its host goes to another one", "[core][resubmit]") {
  const auto allocation = hosts(2, 4, 2);
  Resubmission request;
  request.previous_host = "fn1";
  request.demand = {1, 1};
  request.held_now["fn1"] = {1, 2};
  CHECK(host_for_resubmission(allocation.hosts, request) == "fn2");
}

TEST_CASE("steps that still hold a host give way to what running units will hold",
          "[core][resubmit]") {
  const auto allocation = hosts(2, 4);
  Resubmission request;
  request.previous_host = "fn2";
  request.demand = {2, 0};
  request.lost_hosts = {"fn2"};
  request.held_now["fn1"] = {4, 0};               // an ended unit's step still flushing
  request.held_by_running_units["fn1"] = {2, 0};  // the units still running
  CHECK(host_for_resubmission(allocation.hosts, request) == "fn1");
}

TEST_CASE("no host for a resubmitted unit when only lost or full hosts remain",
          "[core][resubmit]") {
  const auto allocation = hosts(2, 4);
  Resubmission request;
  request.previous_host = "fn1";
  request.demand = {2, 0};
  request.lost_hosts = {"fn1"};
  request.held_now["fn2"] = {3, 0};
  request.held_by_running_units["fn2"] = {3, 0};
  CHECK_FALSE(host_for_resubmission(allocation.hosts, request).has_value());
  request.lost_hosts.insert("fn2");
  request.held_now.clear();
  request.held_by_running_units.clear();
  CHECK_FALSE(host_for_resubmission(allocation.hosts, request).has_value());
}
