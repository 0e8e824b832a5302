// Engine bounds against hostile peers (issue 11): backpressure on a peer
// that does not read its replies, admission of unauthenticated connections
// (total and per-address caps, a fixed deadline), recycling of departed
// member records, fence member sets within the declared program with slots
// allocated as members enter, oversized requests answered, peer text
// escaped in logs. Time is the harness's injected clock.
#include <algorithm>

#include "engine_harness.hpp"
#include "log_capture.hpp"

using namespace slipway::rendezvous;
using namespace slipway::rendezvous::test;
using namespace std::chrono_literals;

namespace {

std::string frames_of(const std::vector<wire::Message>& messages) {
  std::string out;
  for (const auto& m : messages) wire::encode(m, out);
  return out;
}

}  // namespace

TEST_CASE("a backlogged connection's requests wait until it is resumed",
          "[rendezvous][engine][bounds]") {
  Harness h;
  const ConnId c = h.join("w", 0);
  h.engine().put("big", std::string(1000, 'v'));
  h.transport.held.insert(c);  // the peer stops reading: after this reply, nothing
  h.feed(c, frames_of({wire::Get{1, "big"}, wire::Get{2, "big"}, wire::Get{3, "nothing"}}));
  auto replies = h.replies_of(c);
  REQUIRE(replies.size() == 1);
  CHECK(replies[0].id == 1);
  CHECK_FALSE(h.transport.closed.count(c));

  h.transport.held.erase(c);  // drained
  h.engine().resume(c, h.now());
  replies = h.replies_of(c);
  REQUIRE(replies.size() == 2);
  CHECK(replies[0].id == 2);
  CHECK(replies[1].id == 3);
  CHECK(replies[1].status == Status::not_found);
  // Nothing is held any more: the next request is served at once.
  CHECK(h.request(c, wire::Get{4, "big"}).status == Status::ok);
}

TEST_CASE("a held request split across reads is served whole on resume",
          "[rendezvous][engine][bounds]") {
  Harness h;
  const ConnId c = h.join("w", 0);
  const std::string bytes = frames_of({wire::Heartbeat{}, wire::Put{1, Scope::program, "k", "v"}, wire::Get{2, "k"}});
  h.transport.held.insert(c);
  h.feed(c, bytes.substr(0, 12));  // the heartbeat, then the put cut short: held
  h.transport.held.erase(c);
  h.engine().resume(c, h.now());  // nothing whole to serve yet
  CHECK(h.replies_of(c).empty());
  h.feed(c, bytes.substr(12));
  const auto replies = h.replies_of(c);
  REQUIRE(replies.size() == 2);
  CHECK(replies[1].status == Status::ok);
}

TEST_CASE("the authentication deadline is fixed, whatever the heartbeat interval",
          "[rendezvous][engine][bounds][security]") {
  EngineOptions o = Harness::defaults();
  o.heartbeat_interval = std::chrono::hours(1);
  o.limits.auth_timeout_ms = 5000;
  Harness h(o);
  const ConnId idle = h.open();
  CHECK(h.engine().next_deadline() <= h.now() + 5000ms);
  h.advance(4999ms);
  CHECK_FALSE(h.transport.closed.count(idle));
  h.advance(1ms);
  CHECK(h.transport.closed.count(idle));
  CHECK(h.engine().stats().unauthenticated == 0);
}

TEST_CASE("unauthenticated connections are capped in total and per peer address",
          "[rendezvous][engine][bounds][security]") {
  EngineOptions o = Harness::defaults();
  o.limits.max_unauthenticated = 3;
  o.limits.max_unauthenticated_per_address = 2;
  Harness h(o);
  Engine& e = h.engine();
  CHECK(e.connected(101, "10.9.9.9:1", h.now()));
  CHECK(e.connected(102, "10.9.9.9:2", h.now()));
  // A third from one address is admitted; the oldest from it is closed.
  CHECK(e.connected(103, "10.9.9.9:3", h.now()));
  CHECK(h.transport.closed.count(101));
  CHECK_FALSE(h.transport.closed.count(102));
  CHECK(e.accepting());
  CHECK(e.connected(104, "[fd00::1]:4", h.now()));
  CHECK(e.stats().unauthenticated == 3);
  CHECK(e.accepting());
  // Past the total: the oldest of all goes.
  CHECK(e.connected(105, "10.7.7.7:5", h.now()));
  CHECK(h.transport.closed.count(102));
  CHECK(e.stats().unauthenticated == 3);
  CHECK(e.stats().evicted_connections == 2);
  CHECK(e.stats().refused_connections == 0);
}

TEST_CASE("a peer that keeps the per-address cap full cannot lock out a task from its address",
          "[rendezvous][engine][bounds][security]") {
  EngineOptions o = Harness::defaults();
  o.limits.max_unauthenticated = 64;
  o.limits.max_unauthenticated_per_address = 16;
  Harness h(o);
  Engine& e = h.engine();
  // The attacker holds 16 connections from the tasks' address and reopens
  // each one the server closes; a task of the program connects from the
  // same address (the harness's 10.0.0.1) between them and sends its Hello.
  ConnId next = 100000;
  auto attack = [&](int connections) {
    for (int i = 0; i < connections; ++i, ++next) {
      e.connected(next, "10.0.0.1:" + std::to_string(next % 60000), h.now());
    }
  };
  attack(16);
  for (std::uint32_t task = 0; task < 20; ++task) {
    attack(8);
    const ConnId joined = h.join("worker", task);  // opens and authenticates
    CHECK_FALSE(h.transport.closed.count(joined));
    attack(8);
  }
  CHECK(e.stats().unauthenticated == 16);
  CHECK(e.stats().refused_connections == 0);
}

TEST_CASE("authenticating frees the unauthenticated place", "[rendezvous][engine][bounds]") {
  EngineOptions o = Harness::defaults();
  o.limits.max_unauthenticated = 1;
  o.limits.max_unauthenticated_per_address = 1;
  Harness h(o);
  for (std::uint32_t r = 0; r < 5; ++r) h.join("w", r);  // each opens, then authenticates
  CHECK(h.engine().stats().unauthenticated == 0);
  CHECK(h.engine().accepting());
}

TEST_CASE("departed records are recycled, the declared program's last",
          "[rendezvous][engine][bounds]") {
  EngineOptions o = Harness::defaults();
  o.limits.max_members = 4;
  Harness h(o);
  h.engine().declare("w", 2);
  const ConnId w1 = h.join("w", 1, 2);
  REQUIRE(h.request(w1, wire::Put{h.next_id(), Scope::task, "addr/w/1", "here"}).status == Status::ok);
  REQUIRE(h.request(w1, wire::Leave{h.next_id(), 0}).status == Status::ok);
  // Five junk nodes in turn: each is forgotten with its last record before
  // it comes back, and its generation must still never go back.
  std::map<std::string, std::uint64_t> generation;
  for (std::uint32_t i = 0; i < 50; ++i) {
    const std::string node = "junk" + std::to_string(i % 5);
    const ConnId junk = h.join(node, i);
    for (const auto& m : h.engine().members()) {
      if (m.identity.node == node && m.identity.replica == i) {
        CHECK(m.generation > generation[node]);
        generation[node] = m.generation;
      }
    }
    h.engine().disconnected(junk, h.now());
  }
  CHECK(h.engine().stats().member_records <= 4);
  CHECK(h.engine().stats().recycled_records >= 46);
  h.join("w", 0);  // a real member is never locked out
  // w.1's record (inside the program) was kept: its stale attempt is refused.
  const ConnId stale = h.open();
  CHECK(h.authenticate(stale, wire::Role::member, Identity{"w", 1, 2, "h", 1}).status == Status::stale_attempt);
  // Its finished task key stays, owned by nobody once the record goes.
  CHECK(h.engine().get("addr/w/1") == "here");
}

TEST_CASE("records of live members are never recycled", "[rendezvous][engine][bounds]") {
  EngineOptions o = Harness::defaults();
  o.limits.max_members = 2;
  Harness h(o);
  h.join("a", 0);
  h.join("a", 1);
  const ConnId third = h.open();
  const auto w = h.authenticate(third, wire::Role::member, Identity{"a", 2, 0, "h", 1});
  CHECK(w.status == Status::limit_exceeded);
  CHECK(w.message.find("Limits::max_members") != std::string::npos);
}

TEST_CASE("a recycled record's task keys do not pass to the next record",
          "[rendezvous][engine][bounds]") {
  EngineOptions o = Harness::defaults();
  o.limits.max_members = 1;
  Harness h(o);
  const ConnId a = h.join("a", 0);
  REQUIRE(h.request(a, wire::Put{h.next_id(), Scope::task, "kept", "1"}).status == Status::ok);
  REQUIRE(h.request(a, wire::Leave{h.next_id(), 0}).status == Status::ok);
  const ConnId b = h.join("b", 0);  // recycles a.0's record
  h.engine().disconnected(b, h.now());  // b fails: only its own keys go
  CHECK(h.engine().get("kept") == "1");
}

TEST_CASE("a fence's member set lies within the declared program",
          "[rendezvous][engine][bounds][fence]") {
  Harness h;
  h.engine().declare("w", 2);
  const ConnId a = h.join("w", 0);
  auto fence = [&](MemberSet set) {
    return h.request(a, wire::Fence{h.next_id(), "f", std::move(set), false, "", 0});
  };
  const auto past = fence(MemberSet::of({{"w", 0, 1u << 20}}));
  CHECK(past.status == Status::invalid_request);
  CHECK(past.message.find("runs past the 2 declared replicas of node 'w'") != std::string::npos);
  const auto undeclared = fence(MemberSet::of({{"w", 0, 1}, {"x", 0, 1}}));
  CHECK(undeclared.status == Status::invalid_request);
  CHECK(undeclared.message.find("node 'x' is not declared") != std::string::npos);
  CHECK(h.engine().stats().pending_fences == 0);
}

TEST_CASE("a fence holds a slot per entrant, not per member named",
          "[rendezvous][engine][bounds][fence]") {
  Harness h;  // nothing declared: explicit ranges, bounded by max_members
  const ConnId a = h.join("x", 5);
  h.send(a, wire::Fence{h.next_id(), "big", MemberSet::of({{"x", 0, 1u << 20}}), true, "b", 1000});
  CHECK(h.replies_of(a).empty());
  CHECK(h.engine().stats().pending_fences == 1);
  CHECK(h.engine().stats().fence_waiters == 1);
  h.advance(1000ms);
  const auto replies = h.replies_of(a);
  REQUIRE(replies.size() == 1);
  CHECK(replies[0].status == Status::timeout);
  CHECK(replies[0].message.find("x.0, x.1, x.2, x.3, x.4, x.6, x.7, x.8 (+1048567 more)") != std::string::npos);
}

TEST_CASE("a key, value or blob above its bound is answered limit_exceeded",
          "[rendezvous][engine][bounds]") {
  Harness h;
  const ConnId c = h.join("w", 0);
  const Limits l;
  const auto put = h.request(c, wire::Put{h.next_id(), Scope::program, "k", std::string(l.max_value_bytes + 1, 'v')});
  CHECK(put.status == Status::limit_exceeded);
  CHECK(put.message.find("the value is 4194305 bytes, above Limits::max_value_bytes") != std::string::npos);
  CHECK(h.request(c, wire::Get{h.next_id(), std::string(l.max_key_bytes + 1, 'k')}).status == Status::limit_exceeded);
  CHECK(h.request(c, wire::Fence{h.next_id(), "f", MemberSet::node("w", 1), true,
                                 std::string(l.max_blob_bytes + 1, 'b'), 0})
            .status == Status::limit_exceeded);
  CHECK_FALSE(h.transport.closed.count(c));
  CHECK_FALSE(h.engine().get("k"));
}

TEST_CASE("a peer's text is escaped in the log", "[rendezvous][engine][security]") {
  Harness h;
  std::string log;
  {
    LogCapture capture;
    const ConnId c = h.open();
    const std::string forged = "[2026-01-01 00:00:00.000] [warning] forged";
    h.authenticate(c, wire::Role::member, Identity{"x\n" + forged + "\r\x1b[2J\\", 1, 0, "h", 1},
                   std::string(64, 'f'));
    log = capture.text();
  }
  CHECK(log.find("x\\n[2026-01-01 00:00:00.000] [warning] forged\\r\\x1b[2J\\\\.1") != std::string::npos);
  CHECK(log.find('\x1b') == std::string::npos);
  CHECK(log.find('\r') == std::string::npos);
  CHECK(std::count(log.begin(), log.end(), '\n') == 1);  // one line
}
