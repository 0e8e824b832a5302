// Engine: authentication, joins and their attempt rules, leave, failure on
// connection loss and on missed heartbeats, generations, observer callbacks.
#include "engine_harness.hpp"
#include "log_capture.hpp"

using namespace slipway::rendezvous;
using namespace slipway::rendezvous::test;

TEST_CASE("a member with the secret joins and is welcomed", "[rendezvous][engine]") {
  Harness h;
  const ConnId a = h.join("learner", 0);
  const auto members = h.engine().members();
  REQUIRE(members.size() == 1);
  CHECK(members[0].identity == Identity{"learner", 0, 0, "host", 1000});
  CHECK(members[0].state == MemberState::alive);
  CHECK(members[0].generation == 1);
  REQUIRE(h.observed.size() == 1);
  CHECK(h.observed[0].kind == EventKind::member_joined);
  CHECK_FALSE(h.transport.closed.count(a));
}

TEST_CASE("a wrong secret closes the connection and is logged without the secret",
          "[rendezvous][engine][security]") {
  std::string log;
  Harness h;
  const ConnId c = h.open();
  const std::string wrong = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";
  wire::Welcome w;
  {
    LogCapture capture;
    w = h.authenticate(c, wire::Role::member, Identity{"actor", 1, 0, "h", 1}, wrong);
    log = capture.text();
  }

  CHECK(w.status == Status::auth_failed);
  CHECK(h.transport.closed.count(c));
  CHECK(h.engine().members().empty());
  CHECK(h.observed.empty());
  CHECK(log.find("authentication failed") != std::string::npos);
  CHECK(log.find("actor.1") != std::string::npos);
  CHECK(log.find(kToken) == std::string::npos);
  CHECK(log.find(wrong) == std::string::npos);
}

TEST_CASE("nothing but Hello is served before authentication", "[rendezvous][engine][security]") {
  Harness h;
  const ConnId c = h.open();
  h.send(c, wire::Put{1, Scope::program, "k", "v"});
  CHECK(h.transport.closed.count(c));
  CHECK_FALSE(h.engine().get("k"));
  CHECK(h.transport.take(c).empty());
}

TEST_CASE("an unauthenticated frame above the small bound closes the connection",
          "[rendezvous][engine][security]") {
  Harness h;
  const ConnId c = h.open();
  const std::uint8_t header[] = {0x00, 0x00, 0x10, 0x00};  // 1 MiB announced
  h.feed(c, std::string(reinterpret_cast<const char*>(header), 4));
  CHECK(h.transport.closed.count(c));
}

TEST_CASE("a connection that never authenticates is closed", "[rendezvous][engine][security]") {
  EngineOptions o = Harness::defaults();
  o.limits.auth_timeout_ms = 500;
  Harness h(o);
  const ConnId c = h.open();
  h.advance(std::chrono::milliseconds(400));
  CHECK_FALSE(h.transport.closed.count(c));
  h.advance(std::chrono::milliseconds(300));
  CHECK(h.transport.closed.count(c));
}

TEST_CASE("the connection limit refuses extra connections", "[rendezvous][engine]") {
  EngineOptions o = Harness::defaults();
  o.limits.max_connections = 2;
  Harness h(o);
  h.open();
  h.open();
  CHECK_FALSE(h.engine().connected(99, "peer", h.now()));
}

TEST_CASE("a second join of the same attempt is refused", "[rendezvous][engine]") {
  Harness h;
  h.join("actor", 3);
  const ConnId dup = h.open();
  const auto w = h.authenticate(dup, wire::Role::member, Identity{"actor", 3, 0, "other", 7});
  CHECK(w.status == Status::duplicate_member);
  CHECK(w.message.find("actor.3") != std::string::npos);
  CHECK(h.transport.closed.count(dup));
}

TEST_CASE("a newer attempt supersedes the old one, an older one is refused",
          "[rendezvous][engine]") {
  Harness h;
  const ConnId old_conn = h.join("actor", 3, 0);
  const ConnId new_conn = h.join("actor", 3, 1);
  CHECK(h.transport.closed.count(old_conn));
  CHECK_FALSE(h.transport.closed.count(new_conn));
  const auto members = h.engine().members();
  REQUIRE(members.size() == 1);
  CHECK(members[0].identity.attempt == 1);
  CHECK(members[0].state == MemberState::alive);
  // joined (attempt 0), failed (attempt 0), joined (attempt 1)
  REQUIRE(h.observed.size() == 3);
  CHECK(h.observed[1].kind == EventKind::member_failed);
  CHECK(h.observed[1].member.reason.find("superseded by attempt 1") != std::string::npos);
  CHECK(h.observed[2].kind == EventKind::member_joined);

  const ConnId stale = h.open();
  CHECK(h.authenticate(stale, wire::Role::member, Identity{"actor", 3, 0, "h", 1}).status == Status::stale_attempt);
}

TEST_CASE("rejoining after failure needs a newer attempt", "[rendezvous][engine]") {
  Harness h;
  const ConnId a = h.join("actor", 0, 0);
  h.engine().disconnected(a, h.now());
  const ConnId again = h.open();
  const auto w = h.authenticate(again, wire::Role::member, Identity{"actor", 0, 0, "h", 1});
  CHECK(w.status == Status::stale_attempt);
  CHECK(w.message.find("SLIPWAY_ATTEMPT") != std::string::npos);
  h.join("actor", 0, 1);
}

TEST_CASE("a dropped connection fails its member at once", "[rendezvous][engine][faults]") {
  Harness h;
  const ConnId watcher = h.observer();
  REQUIRE(h.request(watcher, wire::Subscribe{h.next_id(), kMemberEvents, ""}).status == Status::ok);
  const ConnId a = h.join("learner", 0);
  h.engine().disconnected(a, h.now());
  const auto members = h.engine().members();
  REQUIRE(members.size() == 1);
  CHECK(members[0].state == MemberState::failed);
  CHECK(members[0].reason == "connection lost");
  CHECK(members[0].generation == 2);
  const auto events = h.events_of(watcher);
  REQUIRE(events.size() == 2);
  CHECK(events[0].kind == EventKind::member_joined);
  CHECK(events[1].kind == EventKind::member_failed);
  CHECK(events[1].member.identity.name() == "learner.0");
}

TEST_CASE("a member whose heartbeats stop is failed after the miss budget",
          "[rendezvous][engine][faults]") {
  Harness h;  // 100 ms interval, budget 3
  const ConnId quiet = h.join("actor", 0);
  const ConnId chatty = h.join("actor", 1);
  for (int i = 0; i < 10; ++i) {
    h.advance(std::chrono::milliseconds(50));
    h.send(chatty, wire::Heartbeat{});
  }
  CHECK(h.transport.closed.count(quiet));
  CHECK_FALSE(h.transport.closed.count(chatty));
  const auto members = h.engine().members();
  CHECK(members[0].state == MemberState::failed);
  CHECK(members[0].reason.find("no heartbeat") != std::string::npos);
  CHECK(members[1].state == MemberState::alive);
}

TEST_CASE("a server that did not run for seconds does not fail members for its own lag",
          "[rendezvous][engine][faults]") {
  Harness h;  // 100 ms interval, budget 3
  const ConnId alive = h.join("actor", 0);
  const ConnId dead = h.join("actor", 1);
  h.advance(std::chrono::milliseconds(50));
  h.send(alive, wire::Heartbeat{});
  h.send(dead, wire::Heartbeat{});
  // The server's host is starved: its next tick comes 2 s late, before it
  // has read the heartbeats waiting in its sockets.
  h.advance(std::chrono::milliseconds(2000));
  CHECK_FALSE(h.transport.closed.count(alive));
  CHECK_FALSE(h.transport.closed.count(dead));
  h.send(alive, wire::Heartbeat{});
  // Counted while the server runs again, the silent one fails on budget.
  for (int i = 0; i < 8; ++i) {
    h.advance(std::chrono::milliseconds(50));
    h.send(alive, wire::Heartbeat{});
  }
  CHECK(h.transport.closed.count(dead));
  CHECK_FALSE(h.transport.closed.count(alive));
  const auto members = h.engine().members();
  CHECK(members[1].state == MemberState::failed);
  CHECK(members[0].state == MemberState::alive);
}

TEST_CASE("leave records the exit status and ends membership cleanly", "[rendezvous][engine]") {
  Harness h;
  const ConnId a = h.join("worker", 2);
  CHECK(h.request(a, wire::Leave{h.next_id(), 7}).status == Status::ok);
  h.engine().disconnected(a, h.now());  // closing after leave is not a failure
  const auto members = h.engine().members();
  REQUIRE(members.size() == 1);
  CHECK(members[0].state == MemberState::left);
  CHECK(members[0].exit_status == 7);
  REQUIRE(h.observed.size() == 2);
  CHECK(h.observed[1].kind == EventKind::member_left);
  CHECK(h.observed[1].member.exit_status == 7);
}

TEST_CASE("every membership change bumps the node's generation", "[rendezvous][engine]") {
  Harness h;
  h.join("a", 0);
  const ConnId a1 = h.join("a", 1);
  h.join("b", 0);
  h.engine().disconnected(a1, h.now());
  h.join("a", 1, 1);
  std::map<std::string, std::uint64_t> gen;
  for (const auto& m : h.engine().members()) gen[m.identity.name()] = m.generation;
  CHECK(gen["a.0"] == 1);
  CHECK(gen["a.1"] == 4);  // join, join, fail, join
  CHECK(gen["b.0"] == 1);
}

TEST_CASE("observers may not leave or fence", "[rendezvous][engine]") {
  Harness h;
  const ConnId o = h.observer();
  CHECK(h.request(o, wire::Leave{h.next_id(), 0}).status == Status::not_member);
  CHECK(h.request(o, wire::Fence{h.next_id(), "f", MemberSet::node("a", 1), false, "", 0}).status ==
        Status::not_member);
  CHECK(h.engine().members().empty());
}

TEST_CASE("the observer hears of a stop before any subscriber is told",
          "[rendezvous][engine]") {
  // The launcher must know the program is stopping before a task, stopped by
  // it, exits: else that exit looks like a failure.
  Harness h;
  const ConnId a = h.join("a", 0);
  REQUIRE(h.request(a, wire::Subscribe{h.next_id(), kAllEvents, ""}).status == Status::ok);
  std::size_t told_before_observer = 99;
  h.on_observed = [&](const Event& e) {
    if (e.kind == EventKind::program_stopping) told_before_observer = h.events_of(a).size();
  };
  const ConnId o = h.observer();
  REQUIRE(h.request(o, wire::RequestStop{h.next_id(), "user asked"}).status == Status::ok);
  CHECK(told_before_observer == 0);
  auto events = h.events_of(a);
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == EventKind::program_stopping);
}

TEST_CASE("request_stop reaches subscribers, late ones too, and the observer",
          "[rendezvous][engine]") {
  Harness h;
  const ConnId a = h.join("a", 0);
  REQUIRE(h.request(a, wire::Subscribe{h.next_id(), kAllEvents, ""}).status == Status::ok);
  const ConnId o = h.observer();
  REQUIRE(h.request(o, wire::RequestStop{h.next_id(), "user asked"}).status == Status::ok);
  CHECK(h.engine().stopping());
  auto events = h.events_of(a);
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == EventKind::program_stopping);
  CHECK(events[0].reason == "user asked");
  CHECK(h.observed.back().kind == EventKind::program_stopping);

  const ConnId late = h.observer();
  REQUIRE(h.request(late, wire::Subscribe{h.next_id(), static_cast<std::uint8_t>(EventKind::program_stopping), ""}).status == Status::ok);
  events = h.events_of(late);
  REQUIRE(events.size() == 1);
  CHECK(events[0].reason == "user asked");
  const auto snapshot = h.request(o, wire::ListMembers{h.next_id()});
  CHECK(std::get<wire::MembersBody>(snapshot.body).stopping);
}
