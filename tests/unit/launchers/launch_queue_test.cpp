// LaunchQueue: units start while their descriptors fit, the rest wait in
// order and start in batches of one attempt as room comes; units waiting
// for a host are parked and queued again when it comes.
#include <catch2/catch.hpp>

#include "launch_queue.hpp"

using slipway::launch::DescriptorBudget;
using slipway::launch::LaunchQueue;
using Units = std::vector<std::size_t>;

namespace {
// 20 descriptors to spend, 8 per unit: two units run at a time.
LaunchQueue two_at_a_time(std::size_t units) {
  return LaunchQueue(DescriptorBudget(units, /*limit=*/100, /*open=*/20, /*reserve=*/60),
                     [](std::size_t) { return std::size_t{8}; });
}
}  // namespace

TEST_CASE("units that do not fit wait in order, and start in batches as running ones end") {
  LaunchQueue queue = two_at_a_time(5);
  CHECK(queue.admit({0, 1, 2, 3}, 0) == Units{0, 1});
  const auto line = queue.refusal();
  REQUIRE(line);
  CHECK(line->find("starting at most 2 tasks at a time") == 0);
  CHECK_FALSE(queue.refusal());  // said once
  CHECK_FALSE(queue.next_batch());  // nothing ended yet
  CHECK(queue.admit({4}, 1).empty());  // nothing overtakes the queue
  queue.release(0);
  queue.release(1);
  auto batch = queue.next_batch();
  REQUIRE(batch);
  CHECK(batch->first == Units{2, 3});
  CHECK(batch->second == 0);
  queue.release(2);
  batch = queue.next_batch();
  REQUIRE(batch);
  CHECK(batch->first == Units{4});  // a batch holds one attempt
  CHECK(batch->second == 1);
  CHECK_FALSE(queue.next_batch());
}

TEST_CASE("a queued unit that is stopped is dropped; one not queued is not") {
  LaunchQueue queue = two_at_a_time(3);
  CHECK(queue.admit({0, 1, 2}, 0) == Units{0, 1});
  CHECK(queue.drop(2));
  CHECK_FALSE(queue.drop(2));
  CHECK_FALSE(queue.drop(0));  // running: not the queue's
  queue.release(0);
  CHECK_FALSE(queue.next_batch());
}

TEST_CASE("a unit waiting for a host gives its descriptors back and is queued again when the host comes") {
  LaunchQueue queue = two_at_a_time(3);
  CHECK(queue.admit({0, 1}, 0) == Units{0, 1});
  queue.wait_for_host(1, 3);
  CHECK(queue.waiting_for_host(1));
  CHECK(queue.admit({2}, 0) == Units{2});  // unit 1's descriptors are free
  CHECK(queue.host_found(1));
  CHECK_FALSE(queue.waiting_for_host(1));
  CHECK_FALSE(queue.host_found(1));
  CHECK_FALSE(queue.next_batch());  // no room until one ends
  queue.release(2);
  const auto batch = queue.next_batch();
  REQUIRE(batch);
  CHECK(batch->first == Units{1});
  CHECK(batch->second == 3);  // the attempt it waited on
}

TEST_CASE("a unit whose host will not come is forgotten; a stop drops a waiting unit") {
  LaunchQueue queue = two_at_a_time(2);
  queue.wait_for_host(0, 0);
  CHECK(queue.host_not_found(0));
  CHECK_FALSE(queue.host_not_found(0));
  queue.wait_for_host(1, 0);
  CHECK(queue.drop(1));
  CHECK_FALSE(queue.waiting_for_host(1));
}
