// tolerance_for_tasks_per_host: the rendezvous heartbeat budget and
// authentication deadline a launcher asks for, by the most tasks on a host.
#include <catch2/catch.hpp>

#include "slipway/launch/control_plane.hpp"

using slipway::launch::tolerance_for_tasks_per_host;

TEST_CASE("small programs keep the 3 s heartbeat budget and the 5 s authentication deadline") {
  for (std::uint32_t tasks : {0u, 1u, 12u, 39u}) {
    CHECK(tolerance_for_tasks_per_host(tasks).miss_budget == 3u);
    CHECK(tolerance_for_tasks_per_host(tasks).auth_timeout_ms == 5000u);
  }
}

TEST_CASE("a second more per 40 tasks on the busiest host, at most 30 s") {
  CHECK(tolerance_for_tasks_per_host(40).miss_budget == 4u);
  CHECK(tolerance_for_tasks_per_host(334).miss_budget == 11u);   // 1,000 tasks on 3 hosts
  CHECK(tolerance_for_tasks_per_host(334).auth_timeout_ms == 13000u);
  CHECK(tolerance_for_tasks_per_host(10000).miss_budget == 30u);
  CHECK(tolerance_for_tasks_per_host(10000).auth_timeout_ms == 32000u);
}
