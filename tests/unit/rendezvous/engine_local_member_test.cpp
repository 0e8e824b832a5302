// Engine: members the launcher runs itself (join_local, set_local_pid,
// end_local) and the observer's view of key changes under a prefix.
#include "engine_harness.hpp"

using namespace slipway::rendezvous;
using namespace slipway::rendezvous::test;

namespace {

using Keys = std::vector<std::pair<std::string, std::string>>;

EngineOptions observing(const std::string& prefix) {
  EngineOptions o = Harness::defaults();
  o.observed_key_prefixes = {prefix};
  return o;
}

}  // namespace

TEST_CASE("a local member joins with its task keys and shows in members()",
          "[rendezvous][engine][local]") {
  Harness h;
  const ConnId watcher = h.observer();
  REQUIRE(h.request(watcher, wire::Subscribe{h.next_id(), kAllEvents, ""}).status == Status::ok);
  std::string message;
  const Identity id{"replay", 0, 0, "node1", 4242};
  REQUIRE(h.engine().join_local(id, Keys{{"addr/replay/0/rpc", "node1:5000"}}, message) == Status::ok);
  CHECK(h.engine().get("addr/replay/0/rpc") == "node1:5000");
  auto members = h.engine().members();
  REQUIRE(members.size() == 1);
  CHECK(members[0].identity == id);
  CHECK(members[0].state == MemberState::alive);
  h.engine().set_local_pid(id, 777);
  CHECK(h.engine().members()[0].identity.pid == 777);
  const auto events = h.events_of(watcher);
  REQUIRE(events.size() == 2);
  CHECK(events[0].kind == EventKind::member_joined);
  CHECK(events[1].kind == EventKind::key_changed);
  CHECK(events[1].key == "addr/replay/0/rpc");
  REQUIRE(h.observed.size() == 1);  // no observed prefix: the observer hears the join only
  CHECK(h.observed[0].kind == EventKind::member_joined);
}

TEST_CASE("a local member follows the join rules of a connected one",
          "[rendezvous][engine][local]") {
  Harness h;
  std::string message;
  const Identity first{"actor", 1, 0, "h", 1};
  REQUIRE(h.engine().join_local(first, {}, message) == Status::ok);
  CHECK(h.engine().join_local(first, {}, message) == Status::duplicate_member);
  CHECK(message.find("actor.1 attempt 0 has already joined") != std::string::npos);
  // A connected agent claiming the same attempt is refused as well.
  const ConnId c = h.open();
  CHECK(h.authenticate(c, wire::Role::member, first).status == Status::duplicate_member);
  // A newer attempt replaces the live one, which fails.
  const Identity second{"actor", 1, 1, "h", 2};
  REQUIRE(h.engine().join_local(second, {}, message) == Status::ok);
  auto members = h.engine().members();
  REQUIRE(members.size() == 1);
  CHECK(members[0].identity.attempt == 1);
  CHECK(h.engine().stats().members_alive == 1);
  bool superseded = false;
  for (const auto& e : h.observed) {
    superseded = superseded || (e.kind == EventKind::member_failed && e.member.identity.attempt == 0);
  }
  CHECK(superseded);
  // The old attempt ending later changes nothing.
  h.engine().end_local(first, 3);
  CHECK(h.engine().members()[0].state == MemberState::alive);
  CHECK(h.engine().join_local(first, {}, message) == Status::stale_attempt);
}

TEST_CASE("a local member's keys stay after status 0 and go after a failure",
          "[rendezvous][engine][local][kv]") {
  Harness h;
  std::string message;
  const Identity done{"server", 0, 0, "h", 1};
  const Identity failed{"server", 1, 0, "h", 2};
  REQUIRE(h.engine().join_local(done, Keys{{"addr/server/0/p", "h:1"}}, message) == Status::ok);
  REQUIRE(h.engine().join_local(failed, Keys{{"addr/server/1/p", "h:2"}}, message) == Status::ok);
  h.engine().end_local(done, 0);
  h.engine().end_local(failed, 1);
  CHECK(h.engine().get("addr/server/0/p") == "h:1");
  CHECK_FALSE(h.engine().get("addr/server/1/p"));
  auto members = h.engine().members();
  REQUIRE(members.size() == 2);
  CHECK(members[0].state == MemberState::left);
  CHECK(members[1].exit_status == 1);
  REQUIRE(h.observed.size() == 4);
  CHECK(h.observed[2].kind == EventKind::member_left);
  CHECK(h.observed[3].member.exit_status == 1);
}

TEST_CASE("a local member's keys are bounded like a client's",
          "[rendezvous][engine][local][security]") {
  EngineOptions o = Harness::defaults();
  o.limits.max_keys = 2;
  Harness h(o);
  std::string message;
  const Identity id{"n", 0, 0, "h", 1};
  CHECK(h.engine().join_local(id, Keys{{"a", "1"}, {"b", "2"}, {"c", "3"}}, message) ==
        Status::limit_exceeded);
  CHECK(h.engine().members().empty());  // refused: nothing changed
  CHECK(h.engine().join_local(id, Keys{{"", "1"}}, message) == Status::limit_exceeded);
  CHECK(h.engine().join_local(id, Keys{{"a", "1"}}, message) == Status::ok);
}

TEST_CASE("the observer hears key changes under its prefix only",
          "[rendezvous][engine][local][kv]") {
  Harness h(observing("addr/"));
  const ConnId a = h.join("a", 0);
  h.observed.clear();
  REQUIRE(h.request(a, wire::Put{h.next_id(), Scope::task, "addr/a/0/p", "h:9"}).status == Status::ok);
  REQUIRE(h.request(a, wire::Put{h.next_id(), Scope::program, "other", "x"}).status == Status::ok);
  h.engine().disconnected(a, h.now());  // withdraws addr/a/0/p
  std::vector<Event> keys;
  for (const auto& e : h.observed) {
    if (e.kind == EventKind::key_changed) keys.push_back(e);
  }
  REQUIRE(keys.size() == 2);
  CHECK(keys[0].key == "addr/a/0/p");
  CHECK(keys[0].value == "h:9");
  CHECK_FALSE(keys[1].value);
}
