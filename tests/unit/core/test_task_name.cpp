// Task names "NODE.REPLICA" taken apart, as slipway-exec's --task and the
// PMIx hook read them.
#include <catch2/catch.hpp>

#include "slipway/core/plan.hpp"

using namespace slipway::core;

TEST_CASE("a task name is a node and a decimal replica after the last dot", "[core][task_name]") {
  auto parsed = parse_task_name("replay-buffer.12");
  REQUIRE(parsed);
  CHECK(parsed->node == "replay-buffer");
  CHECK(parsed->replica == 12);
  auto dotted = parse_task_name("a.b.3");
  REQUIRE(dotted);
  CHECK(dotted->node == "a.b");
  CHECK(dotted->replica == 3);
}

TEST_CASE("malformed task names are refused", "[core][task_name]") {
  for (const char* bad : {"learner", ".3", "learner.", "learner.x", "learner.3x", "learner.-1",
                          "learner. 1", "learner.4294967296"}) {
    INFO(bad);
    CHECK_FALSE(parse_task_name(bad));
  }
}
