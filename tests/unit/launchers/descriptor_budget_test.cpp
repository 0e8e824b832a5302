// DescriptorBudget: units start while their descriptors fit under the limit
// on open files; the first always starts; the refusal is said once.
#include <catch2/catch.hpp>

#include "slipway/launch/descriptor_budget.hpp"

using slipway::launch::DescriptorBudget;

TEST_CASE("units start while their descriptors fit, and make room as they end") {
  DescriptorBudget budget(4, /*limit=*/100, /*open=*/20, /*reserve=*/60);  // 20 to spend
  CHECK(budget.take(0, 8));
  CHECK(budget.take(1, 8));
  CHECK_FALSE(budget.take(2, 8));
  CHECK(budget.in_use() == 16);
  budget.release(0);
  CHECK(budget.take(2, 8));
  CHECK(budget.take(3, 0));  // not counted
}

TEST_CASE("a unit bigger than the whole budget still runs, alone") {
  DescriptorBudget budget(2, 100, 90, 64);  // nothing to spend
  CHECK(budget.take(0, 5));
  CHECK_FALSE(budget.take(1, 5));
  budget.release(0);
  CHECK(budget.take(1, 5));
}

TEST_CASE("the first refusal is said once, with how many run at a time") {
  DescriptorBudget budget(1, 1000, 36, 64);  // 900 to spend
  auto line = budget.first_refusal(9);
  REQUIRE(line);
  CHECK(line->find("starting at most 100 tasks at a time") == 0);
  CHECK(line->find("(ulimit -n)") != std::string::npos);
  CHECK_FALSE(budget.first_refusal(9));
}
