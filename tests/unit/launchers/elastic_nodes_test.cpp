// ElasticNodes: starting sizes, clamped requests, settle windows that merge
// requests, and live sets (dense for worlds, stable indices for none).
#include <catch2/catch.hpp>

#include "slipway/launch/elastic_nodes.hpp"

using namespace slipway::launch;
using namespace std::chrono_literals;

namespace {
const Clock::time_point t0{};

ElasticNodeSpec spec(const std::string& node, std::uint32_t min, std::uint32_t max,
                     std::uint32_t slots, bool world, bool manual = false) {
  ElasticNodeSpec s;
  s.node = node;
  s.min = min;
  s.max = max;
  s.slots = slots;
  s.hosted = slots;
  s.world = world;
  s.grow_manual = manual;
  s.settle = 500ms;
  return s;
}

using Live = std::vector<std::uint32_t>;
}  // namespace

TEST_CASE("a node starts with every slot, or at MIN when it grows by hand") {
  ElasticNodes e({spec("trainer", 2, 4, 4, true), spec("actor", 2, 8, 6, false, true)});
  CHECK(e.live("trainer") == Live{0, 1, 2, 3});
  CHECK(e.live("actor") == Live{0, 1});
  CHECK(e.knows("actor"));
  CHECK_FALSE(e.knows("learner"));
  CHECK(e.live_sets().size() == 2);
  CHECK_FALSE(e.next_deadline());
}

TEST_CASE("requests within the settle window make one resize, to the last size asked") {
  ElasticNodes e({spec("trainer", 2, 4, 4, true, true)});
  CHECK(e.request("trainer", 3, "slipway scale (a@h)", t0).empty());
  CHECK(e.next_deadline() == t0 + 500ms);
  CHECK(e.request("trainer", 4, "learner.0", t0 + 300ms).empty());
  CHECK(e.next_deadline() == t0 + 500ms);  // the window does not move
  CHECK(e.tick(t0 + 499ms).empty());
  auto resizes = e.tick(t0 + 500ms);
  REQUIRE(resizes.size() == 1);
  CHECK(resizes[0].from == Live{0, 1});
  CHECK(resizes[0].live == Live{0, 1, 2, 3});
  CHECK(resizes[0].cause == "trainer grows from 2 to 4 replicas (asked by slipway scale (a@h), learner.0)");
  CHECK(e.live("trainer") == Live{0, 1, 2, 3});
  CHECK_FALSE(e.next_deadline());
}

TEST_CASE("a request is clamped to MIN and to the slots the plan placed, saying why") {
  ElasticNodes e({spec("actor", 2, 8, 6, false)});
  CHECK(e.request("actor", 1, "me", t0) == "me asked for 1 replicas of actor: clamped to 2, its MIN (replicas = \"2:8\")");
  CHECK(e.request("actor", 9, "me", t0) ==
        "me asked for 9 replicas of actor: clamped to 6: the plan placed 6 of its 8 replicas (the allocation has no room for more)");
  ElasticNodes full({spec("actor", 2, 8, 8, false)});
  CHECK(full.request("actor", 100, "me", t0) == "me asked for 100 replicas of actor: clamped to 8, its MAX (replicas = \"2:8\")");
  // Asking for the size it has changes nothing.
  CHECK(full.tick(t0 + 1s).empty());
}

TEST_CASE("a none node shrinks from its highest replicas and grows into its lowest free slots") {
  ElasticNodes e({spec("actor", 2, 6, 6, false)});
  e.request("actor", 2, "me", t0);
  auto r = e.tick(t0 + 1s);
  REQUIRE(r.size() == 1);
  CHECK(r[0].live == Live{0, 1});
  CHECK(r[0].cause == "actor shrinks from 6 to 2 replicas (asked by me)");
  // A replica lost: a none node drops that one; not below MIN.
  ElasticNodes lossy({spec("actor", 2, 4, 4, false), spec("trainer", 2, 3, 3, true)});
  auto dropped = lossy.lost("actor", 1, "actor.1 exited with status 1");
  REQUIRE(dropped);
  CHECK(dropped->live == Live{0, 2, 3});
  CHECK(dropped->cause == "actor shrinks from 4 to 3 replicas (actor.1 exited with status 1)");
  CHECK(lossy.lost("actor", 0, "x"));
  CHECK_FALSE(lossy.lost("actor", 2, "x"));  // at MIN
  // A world drops its highest rank: ranks stay dense.
  auto world = lossy.lost("trainer", 0, "no host has room for trainer.0");
  REQUIRE(world);
  CHECK(world->live == Live{0, 1});
  e.request("actor", 4, "me", t0 + 2s);
  r = e.tick(t0 + 3s);
  REQUIRE(r.size() == 1);
  CHECK(r[0].from == Live{0, 1});
  CHECK(r[0].live == Live{0, 1, 2, 3});
}

TEST_CASE("slots held for satellites run once granted, and are given back when no longer wanted") {
  auto s = spec("trainer", 1, 3, 3, true, true);
  s.hosted = 1;
  ElasticNodes e({s});
  CHECK(e.live("trainer") == Live{0});
  CHECK(e.satellites_wanted("trainer") == 0);
  CHECK(e.request("trainer", 3, "me", t0).empty());
  CHECK(e.satellites_wanted("trainer") == 2);
  CHECK(e.tick(t0 + 1s).empty());  // nothing more is hosted yet
  CHECK(e.grant("trainer", "satellite job 7 granted on fn2", t0 + 2s) == 1);
  CHECK(e.satellites_wanted("trainer") == 1);
  CHECK(e.next_deadline() == t0 + 2500ms);
  auto r = e.tick(t0 + 3s);
  REQUIRE(r.size() == 1);
  CHECK(r[0].live == Live{0, 1});
  CHECK(r[0].cause == "trainer grows from 1 to 2 replicas (asked by me; satellite job 7 granted on fn2)");
  CHECK_FALSE(e.release("trainer"));  // still wanted
  e.request("trainer", 1, "me", t0 + 4s);
  CHECK(e.satellites_wanted("trainer") == 0);
  CHECK_FALSE(e.release("trainer"));  // slot 1 runs until the resize
  r = e.tick(t0 + 5s);
  REQUIRE(r.size() == 1);
  CHECK(r[0].live == Live{0});
  CHECK(e.release("trainer") == 1u);
  CHECK_FALSE(e.release("trainer"));  // slot 0 is the allocation's
  // A wanted size that satellites will not bring settles for what is hosted.
  e.request("trainer", 3, "me", t0 + 6s);
  CHECK(e.settle_for_hosted("trainer") == 3);
  CHECK(e.satellites_wanted("trainer") == 0);
  CHECK(e.tick(t0 + 7s).empty());
  // A grow request and a grant in one window make one resize with both causes.
  e.request("trainer", 2, "me", t0 + 8s);
  e.grant("trainer", "satellite job 8 granted on fn3", t0 + 8200ms);
  r = e.tick(t0 + 9s);
  REQUIRE(r.size() == 1);
  CHECK(r[0].cause == "trainer grows from 1 to 2 replicas (asked by me; satellite job 8 granted on fn3)");
}

TEST_CASE("a lost replica lowers the wanted size: the node does not grow back by itself") {
  ElasticNodes e({spec("trainer", 2, 3, 3, true)});
  REQUIRE(e.lost("trainer", 1, "no host has room for trainer.1"));
  CHECK(e.live("trainer") == Live{0, 1});
  CHECK(e.satellites_wanted("trainer") == 0);
  CHECK_FALSE(e.next_deadline());
}

TEST_CASE("a world that lost a rank with no room shrinks, gives up its highest slot and grows back once it is hosted again") {
  ElasticNodes e({spec("trainer", 2, 3, 3, true)});
  // Rank 0's host is lost: rank 0's replica takes slot 2's host; slot 2 has none.
  auto r = e.lost_without_room("trainer", 0, "no host has room for trainer.0", true);
  REQUIRE(r);
  CHECK(r->live == Live{0, 1});
  CHECK(r->unhosted == 2u);
  CHECK(r->cause == "trainer shrinks from 3 to 2 replicas (no host has room for trainer.0)");
  CHECK(e.satellites_wanted("trainer") == 1);  // it wants slot 2 back
  CHECK(e.tick(t0 + 10s).empty());             // and does not grow until then
  CHECK_FALSE(e.releasable("trainer"));
  CHECK(e.grant("trainer", "satellite job 9 granted on fn3", t0 + 20s) == 2);
  CHECK(e.satellites_wanted("trainer") == 0);
  CHECK(e.tick(t0 + 20s).empty());  // the settle window first
  auto grown = e.tick(t0 + 20500ms);
  REQUIRE(grown.size() == 1);
  CHECK(grown[0].live == Live{0, 1, 2});
  CHECK(grown[0].cause == "trainer grows from 2 to 3 replicas (satellite job 9 granted on fn3)");
  // At MIN it cannot shrink: the launcher replaces the rank's host instead.
  REQUIRE(e.lost_without_room("trainer", 2, "x", true));
  CHECK_FALSE(e.lost_without_room("trainer", 1, "x", true));
}

TEST_CASE("a none node that lost a replica with no room gives up that replica's slot, and grows back into it") {
  ElasticNodes e({spec("actor", 1, 4, 4, false)});
  auto r = e.lost_without_room("actor", 1, "no host has room for actor.1", true);
  REQUIRE(r);
  CHECK(r->live == Live{0, 2, 3});
  CHECK(r->unhosted == 1u);
  CHECK(e.satellites_wanted("actor") == 1);
  REQUIRE(e.lost_without_room("actor", 3, "no host has room for actor.3", true));
  CHECK(e.satellites_wanted("actor") == 2);
  // The lowest slot without a host is hosted first.
  CHECK(e.grant("actor", "room on fn1 of job 4", t0) == 1);
  auto grown = e.tick(t0 + 1s);
  REQUIRE(grown.size() == 1);
  CHECK(grown[0].live == Live{0, 1, 2});
  CHECK(e.satellites_wanted("actor") == 1);
  // A wait that ended with no host settles for what it has.
  CHECK(e.settle_for_hosted("actor") == 4);
  CHECK(e.satellites_wanted("actor") == 0);
}

TEST_CASE("a loss without room whose host will not come back leaves the node at its smaller size") {
  ElasticNodes e({spec("trainer", 1, 3, 3, true)});
  auto r = e.lost_without_room("trainer", 1, "no host has room for trainer.1", false);
  REQUIRE(r);
  CHECK(r->unhosted == 2u);
  CHECK(e.satellites_wanted("trainer") == 0);
  CHECK_FALSE(e.next_deadline());
}
