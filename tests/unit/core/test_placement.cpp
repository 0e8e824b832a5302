// The relaunch placement rule (core/placement.hpp).
#include <catch2/catch.hpp>

#include "slipway/core/placement.hpp"

using namespace slipway::core;

namespace {

Plan three_hosts() {
  Plan plan;
  for (const char* name : {"n1", "n2", "n3"}) {
    Host host;
    host.name = name;
    host.cpus = 4;
    host.gpus = 1;
    plan.hosts.push_back(host);
  }
  return plan;
}

}  // namespace

TEST_CASE("a relaunch stays on its host while it has room", "[core][placement]") {
  const Plan plan = three_hosts();
  CHECK(host_for_relaunch(plan, "n2", {2, 0}, {{"n2", {2, 1}}}, {}) == "n2");
  // Full: the first host in plan order with room.
  CHECK(host_for_relaunch(plan, "n2", {2, 0}, {{"n2", {3, 0}}}, {}) == "n1");
  CHECK(host_for_relaunch(plan, "n2", {1, 1}, {{"n1", {0, 1}}, {"n2", {0, 1}}}, {}) == "n3");
}

TEST_CASE("a relaunch never goes to a lost host", "[core][placement]") {
  const Plan plan = three_hosts();
  CHECK(host_for_relaunch(plan, "n1", {1, 0}, {}, {"n1"}) == "n2");
  CHECK(host_for_relaunch(plan, "n1", {1, 0}, {}, {"n1", "n2"}) == "n3");
  CHECK_FALSE(host_for_relaunch(plan, "n1", {1, 0}, {}, {"n1", "n2", "n3"}));
}

TEST_CASE("no host with room gives nothing", "[core][placement]") {
  const Plan plan = three_hosts();
  CHECK_FALSE(host_for_relaunch(plan, "n1", {5, 0}, {}, {}));
  CHECK_FALSE(host_for_relaunch(plan, "n1", {1, 0}, {{"n1", {4, 0}}, {"n2", {4, 0}}, {"n3", {4, 0}}},
                                {}));
  CHECK_FALSE(host_for_relaunch(plan, "n1", {0, 2}, {}, {}));
}
