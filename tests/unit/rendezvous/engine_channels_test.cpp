// Engine: many members on one connection (channels): admission per member
// (identity, attempt, secret), requests and replies per channel, a lost or
// silent connection failing every member on it, one member's leave, close
// or supersession touching no other, and the cap on members per connection.
#include "engine_harness.hpp"

using namespace slipway::rendezvous;
using namespace slipway::rendezvous::test;

namespace {

// An agent's connection as the engine sees it: one observer connection and
// the channels it opens.
struct Agent {
  Harness& h;
  ConnId conn;

  explicit Agent(Harness& harness) : h(harness), conn(harness.observer()) {}

  wire::Hello hello(std::uint32_t channel, const Identity& id, std::uint32_t mac_channel,
                    const std::string& token = kToken) {
    wire::Hello hello;
    hello.role = wire::Role::member;
    hello.identity = id;
    hello.client_nonce[0] = static_cast<std::uint8_t>(channel);
    hello.mac = wire::client_mac(HmacKey(token), h.challenge(conn).server_nonce, hello, mac_channel);
    return hello;
  }
  void send(std::uint32_t channel, const wire::Message& m) {
    std::string inner;
    wire::encode(m, inner);
    h.send(conn, wire::ChannelFrame{channel, inner.substr(wire::kFrameHeaderBytes)});
  }
  // What the engine sent on the connection, unwrapped: (channel, message);
  // channel 0 for frames of the connection itself.
  std::vector<std::pair<std::uint32_t, wire::Message>> take() {
    std::vector<std::pair<std::uint32_t, wire::Message>> out;
    for (auto& m : h.transport.take(conn)) {
      if (auto* f = std::get_if<wire::ChannelFrame>(&m)) {
        wire::Message inner;
        std::string error;
        REQUIRE(wire::decode(std::span(reinterpret_cast<const std::uint8_t*>(f->body.data()),
                                       f->body.size()),
                             Limits{}, inner, error));
        out.emplace_back(f->channel, std::move(inner));
      } else {
        out.emplace_back(0, std::move(m));
      }
    }
    return out;
  }
  wire::Welcome open(std::uint32_t channel, const Identity& id) {
    send(channel, hello(channel, id, channel));
    auto msgs = take();
    REQUIRE(msgs.size() >= 1);
    CHECK(msgs[0].first == channel);
    return std::get<wire::Welcome>(msgs[0].second);
  }
  // The one reply to `m` on `channel`.
  wire::Reply request(std::uint32_t channel, const wire::Message& m) {
    send(channel, m);
    auto msgs = take();
    REQUIRE(msgs.size() == 1);
    CHECK(msgs[0].first == channel);
    return std::get<wire::Reply>(msgs[0].second);
  }
};

Identity task(std::uint32_t replica, std::uint32_t attempt = 0) {
  return Identity{"actor", replica, attempt, "agent-host", 2000 + replica};
}

MemberState state_of(Harness& h, std::uint32_t replica) {
  for (const auto& m : h.engine().members()) {
    if (m.identity.replica == replica) return m.state;
  }
  FAIL("no record of actor." << replica);
  return MemberState::failed;
}

std::string reason_of(Harness& h, std::uint32_t replica) {
  for (const auto& m : h.engine().members()) {
    if (m.identity.replica == replica) return m.reason;
  }
  return {};
}

}  // namespace

TEST_CASE("one connection carries many members, each admitted on its own channel",
          "[rendezvous][engine][channels]") {
  Harness h;
  Agent a(h);
  for (std::uint32_t r = 0; r < 3; ++r) {
    const auto w = a.open(r + 1, task(r));
    CHECK(w.status == Status::ok);
    CHECK(w.generation == r + 1);
  }
  CHECK(h.engine().members().size() == 3);
  CHECK(h.engine().stats().members_alive == 3);
  CHECK(h.engine().stats().connections == 1);
  CHECK(h.engine().stats().channels == 3);

  // Each channel's requests act for its own member: task keys are theirs.
  CHECK(a.request(1, wire::Put{h.next_id(), Scope::task, "addr/actor/0", "a0"}).status == Status::ok);
  CHECK(a.request(2, wire::Put{h.next_id(), Scope::task, "addr/actor/1", "a1"}).status == Status::ok);
  CHECK(a.request(1, wire::Leave{h.next_id(), 3}).status == Status::ok);
  CHECK(state_of(h, 0) == MemberState::left);
  CHECK_FALSE(h.engine().get("addr/actor/0"));  // withdrawn: left with status 3
  CHECK(h.engine().get("addr/actor/1") == "a1");
  CHECK(state_of(h, 1) == MemberState::alive);
  CHECK(state_of(h, 2) == MemberState::alive);
  CHECK_FALSE(h.transport.closed.count(a.conn));
}

TEST_CASE("admission per member on a shared connection: secret, duplicate and stale attempts",
          "[rendezvous][engine][channels][security]") {
  Harness h;
  Agent a(h);
  REQUIRE(a.open(1, task(0)).status == Status::ok);

  SECTION("a wrong secret refuses that channel only") {
    const std::string wrong(64, 'f');
    a.send(2, a.hello(2, task(1), 2, wrong));
    auto msgs = a.take();
    REQUIRE(msgs.size() == 1);
    CHECK(msgs[0].first == 2);
    CHECK(std::get<wire::Welcome>(msgs[0].second).status == Status::auth_failed);
    CHECK(h.engine().members().size() == 1);
    CHECK_FALSE(h.transport.closed.count(a.conn));
    CHECK(a.request(1, wire::Get{h.next_id(), "k"}).status == Status::not_found);
  }
  SECTION("a Hello made for another channel is refused") {
    a.send(3, a.hello(3, task(1), 2));
    auto msgs = a.take();
    REQUIRE(msgs.size() == 1);
    CHECK(std::get<wire::Welcome>(msgs[0].second).status == Status::auth_failed);
  }
  SECTION("the same attempt twice is a duplicate, an older one stale") {
    CHECK(a.open(2, task(0)).status == Status::duplicate_member);
    CHECK(a.open(3, task(1, 2)).status == Status::ok);
    CHECK(a.open(4, task(1, 1)).status == Status::stale_attempt);
    CHECK(h.engine().stats().channels == 2);
  }
  SECTION("an observer cannot take a channel") {
    a.send(2, [&] {
      wire::Hello o = a.hello(2, {}, 2);
      o.role = wire::Role::observer;
      o.mac = wire::client_mac(HmacKey(kToken), h.challenge(a.conn).server_nonce, o, 2);
      return o;
    }());
    auto msgs = a.take();
    REQUIRE(msgs.size() == 1);
    CHECK(std::get<wire::Welcome>(msgs[0].second).status == Status::invalid_request);
  }
}

TEST_CASE("a lost connection fails every member it carries", "[rendezvous][engine][channels]") {
  Harness h;
  Agent a(h);
  for (std::uint32_t r = 0; r < 4; ++r) REQUIRE(a.open(r + 1, task(r)).status == Status::ok);
  h.engine().disconnected(a.conn, h.now());
  for (std::uint32_t r = 0; r < 4; ++r) {
    CHECK(state_of(h, r) == MemberState::failed);
    CHECK(reason_of(h, r) == "connection lost");
  }
  CHECK(h.engine().stats().channels == 0);
  CHECK(h.engine().stats().connections == 0);
  CHECK(h.transport.sends_after_close == 0);
}

TEST_CASE("the connection's heartbeats keep its members and its silence fails them all",
          "[rendezvous][engine][channels]") {
  Harness h;  // interval 100 ms, budget 3
  Agent a(h);
  for (std::uint32_t r = 0; r < 3; ++r) REQUIRE(a.open(r + 1, task(r)).status == Status::ok);
  for (int i = 0; i < 10; ++i) {
    h.send(a.conn, wire::Heartbeat{});
    h.advance(std::chrono::milliseconds(100));
  }
  for (std::uint32_t r = 0; r < 3; ++r) CHECK(state_of(h, r) == MemberState::alive);
  // In steps: one jump past an interval would be the server's own stall.
  for (int i = 0; i < 10; ++i) h.advance(std::chrono::milliseconds(50));
  for (std::uint32_t r = 0; r < 3; ++r) {
    CHECK(state_of(h, r) == MemberState::failed);
    CHECK(reason_of(h, r).find("no heartbeat") != std::string::npos);
  }
  CHECK(h.transport.closed.count(a.conn));
}

TEST_CASE("one member's leave, close or supersession does not touch the others",
          "[rendezvous][engine][channels]") {
  Harness h;
  Agent a(h);
  for (std::uint32_t r = 0; r < 3; ++r) REQUIRE(a.open(r + 1, task(r)).status == Status::ok);

  SECTION("its client closes the channel: that member fails, the others fence on") {
    a.send(2, wire::Closed{Status::connection_lost, "task gone"});
    CHECK(state_of(h, 1) == MemberState::failed);
    CHECK(state_of(h, 0) == MemberState::alive);
    CHECK(state_of(h, 2) == MemberState::alive);
    // Channel 2's later frames are dropped, not a protocol error.
    a.send(2, wire::Get{h.next_id(), "k"});
    CHECK(a.take().empty());
    const MemberSet pair = MemberSet::of({{"actor", 0, 1}, {"actor", 2, 1}});
    a.send(1, wire::Fence{h.next_id(), "f", pair, true, "b0", 0});
    a.send(3, wire::Fence{h.next_id(), "f", pair, true, "b2", 0});
    auto msgs = a.take();
    REQUIRE(msgs.size() == 2);
    std::set<std::uint32_t> channels;
    for (auto& [channel, m] : msgs) {
      channels.insert(channel);
      const auto& r = std::get<wire::Reply>(m);
      CHECK(r.status == Status::ok);
      const auto& blobs = std::get<wire::FenceBody>(r.body).blobs;
      REQUIRE(blobs.size() == 2);
      CHECK(blobs[0].blob == "b0");
      CHECK(blobs[1].blob == "b2");
    }
    CHECK(channels == std::set<std::uint32_t>{1, 3});
  }
  SECTION("a newer attempt elsewhere closes only its channel, and says why") {
    const ConnId elsewhere = h.join("actor", 1, 1);
    auto msgs = a.take();
    REQUIRE(msgs.size() == 1);
    CHECK(msgs[0].first == 2);
    const auto& closed = std::get<wire::Closed>(msgs[0].second);
    CHECK(closed.reason.find("superseded by attempt 1") != std::string::npos);
    CHECK(state_of(h, 0) == MemberState::alive);
    CHECK(state_of(h, 2) == MemberState::alive);
    CHECK_FALSE(h.transport.closed.count(a.conn));
    CHECK_FALSE(h.transport.closed.count(elsewhere));
    // The channel number may open again, for another member.
    CHECK(a.open(2, task(5)).status == Status::ok);
  }
  SECTION("a leave keeps the channel and the other members") {
    CHECK(a.request(3, wire::Leave{h.next_id(), 0}).status == Status::ok);
    CHECK(state_of(h, 2) == MemberState::left);
    CHECK(state_of(h, 0) == MemberState::alive);
    CHECK(a.request(3, wire::Get{h.next_id(), "k"}).status == Status::not_found);
  }
  SECTION("a malformed frame in one channel closes the connection, failing all") {
    std::string garbage("\x0a\xff", 2);
    h.send(a.conn, wire::ChannelFrame{2, garbage});
    CHECK(h.transport.closed.count(a.conn));
    for (std::uint32_t r = 0; r < 3; ++r) CHECK(state_of(h, r) == MemberState::failed);
  }
}

TEST_CASE("a connection carries at most max_channels_per_connection members",
          "[rendezvous][engine][channels][bounds]") {
  EngineOptions o = Harness::defaults();
  o.limits.max_channels_per_connection = 2;
  Harness h(o);
  Agent a(h);
  REQUIRE(a.open(1, task(0)).status == Status::ok);
  REQUIRE(a.open(2, task(1)).status == Status::ok);
  const auto refused = a.open(3, task(2));
  CHECK(refused.status == Status::limit_exceeded);
  CHECK(refused.message.find("max_channels_per_connection") != std::string::npos);
  CHECK(h.engine().members().size() == 2);
  CHECK_FALSE(h.transport.closed.count(a.conn));
  a.send(1, wire::Closed{Status::connection_lost, ""});
  CHECK(a.open(3, task(2)).status == Status::ok);
  CHECK(h.engine().stats().channels == 2);
}

TEST_CASE("channel frames are refused before authentication and bounded by the decoder",
          "[rendezvous][engine][channels][security]") {
  Harness h;
  const ConnId c = h.open();
  std::string inner;
  wire::encode(wire::Get{1, "k"}, inner);
  h.send(c, wire::ChannelFrame{1, inner.substr(4)});
  CHECK(h.transport.closed.count(c));

  wire::Message m;
  std::string error;
  const std::uint8_t channel_zero[] = {5, 0, 0, 0, 0, 4};
  CHECK_FALSE(wire::decode(channel_zero, Limits{}, m, error));
  const std::uint8_t nested[] = {5, 1, 0, 0, 0, 5, 1, 0, 0, 0, 4};
  CHECK_FALSE(wire::decode(nested, Limits{}, m, error));
  const std::uint8_t empty[] = {5, 1, 0, 0, 0};
  CHECK_FALSE(wire::decode(empty, Limits{}, m, error));
}
