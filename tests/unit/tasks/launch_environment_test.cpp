// The task's starting environment: slipway's variables on top of the
// inherited ones (base::this_environment, tested in unit/base).
#include <catch2/catch.hpp>

#include "slipway/tasks/launch_environment.hpp"

using namespace slipway;

TEST_CASE("slipway's variables replace inherited ones of the same name") {
  std::vector<std::string> env{"PATH=/bin", "SLIPWAY_NODE=stale", "X=1=2"};
  tasks::merge_environment(env, {{"SLIPWAY_NODE", "learner"}, {"RANK", "3"}, {"X", "y"}});
  CHECK(env == std::vector<std::string>{"PATH=/bin", "SLIPWAY_NODE=learner", "X=y", "RANK=3"});
}
