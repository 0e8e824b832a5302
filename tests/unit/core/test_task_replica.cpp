// SLIPWAY_REPLICA = SLIPWAY_REPLICA_BASE + global task id, bounded.
#include <catch2/catch.hpp>

#include "slipway/core/task_replica.hpp"

using namespace slipway::core;

TEST_CASE("the replica is the base plus the task id", "[core][replica]") {
  CHECK(replica_for_task("0", 0) == "0");
  CHECK(replica_for_task("8", 3) == "11");
}

TEST_CASE("a base that is not a plain decimal is refused", "[core][replica]") {
  CHECK_FALSE(replica_for_task("", 0));
  CHECK_FALSE(replica_for_task("-1", 0));
  CHECK_FALSE(replica_for_task("+1", 0));
  CHECK_FALSE(replica_for_task("1x", 0));
  CHECK_FALSE(replica_for_task(" 1", 0));
  CHECK_FALSE(replica_for_task("99999999999", 0));
}

TEST_CASE("replicas above the bound are refused", "[core][replica]") {
  CHECK(replica_for_task("1000000000", 0) == "1000000000");
  CHECK_FALSE(replica_for_task("1000000000", 1));
  CHECK_FALSE(replica_for_task("0", 4000000000U));
}
