// Engine fault injection at the byte level: frames split at every position,
// garbage, a frame type a client may not send, and load from many members.
#include <random>

#include "engine_harness.hpp"

using namespace slipway::rendezvous;
using namespace slipway::rendezvous::test;

TEST_CASE("requests split at every byte are served the same", "[rendezvous][engine][faults]") {
  Harness h;
  const ConnId a = h.join("a", 0);
  std::string stream;
  wire::encode(wire::Put{1, Scope::program, "key", "value"}, stream);
  wire::encode(wire::Get{2, "key"}, stream);
  wire::encode(wire::Add{3, Scope::program, "n", 2}, stream);
  for (char c : stream) h.feed(a, std::string(1, c));
  const auto replies = h.replies_of(a);
  REQUIRE(replies.size() == 3);
  CHECK(std::get<wire::ValueBody>(replies[1].body).value == "value");
  CHECK(std::get<wire::AddBody>(replies[2].body).value == 2);
}

TEST_CASE("garbage from a member is a protocol error that fails it", "[rendezvous][engine][faults]") {
  Harness h;
  const ConnId a = h.join("a", 0);
  h.feed(a, std::string("\x03\x00\x00\x00\xff\xff\xff", 7));
  CHECK(h.transport.closed.count(a));
  CHECK(h.engine().members()[0].state == MemberState::failed);
  CHECK(h.engine().members()[0].reason.find("protocol error") != std::string::npos);
}

TEST_CASE("server-only messages from a client are refused", "[rendezvous][engine][faults]") {
  Harness h;
  const ConnId a = h.join("a", 0);
  h.send(a, wire::Reply{1, Status::ok, "", std::monostate{}});
  CHECK(h.transport.closed.count(a));
}

TEST_CASE("random bytes never crash the engine", "[rendezvous][engine][faults]") {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    Harness h;
    const ConnId a = rng() % 2 ? h.join("a", 0) : h.open();
    std::string junk(rng() % 200, '\0');
    for (auto& c : junk) c = static_cast<char>(rng());
    h.feed(a, junk);
    h.advance(std::chrono::milliseconds(1000));
    CHECK(h.transport.sends_after_close == 0);
  }
}

TEST_CASE("a thousand members join, publish and fence", "[rendezvous][engine]") {
  Harness h;
  const std::uint32_t n = 1000;
  h.engine().declare("m", n);
  std::vector<ConnId> conns;
  for (std::uint32_t r = 0; r < n; ++r) {
    conns.push_back(h.join("m", r));
    h.send(conns.back(), wire::Put{h.next_id(), Scope::task, "addr/m/" + std::to_string(r) + "/p", std::string(64, 'a')});
  }
  for (std::uint32_t r = 0; r < n; ++r) {
    h.send(conns[r], wire::Fence{h.next_id(), "boot", MemberSet::program(), false, "", 0});
  }
  std::size_t ok = 0;
  for (ConnId c : conns) {
    for (const auto& r : h.replies_of(c)) {
      if (std::holds_alternative<wire::FenceBody>(r.body) && r.status == Status::ok) ++ok;
    }
  }
  CHECK(ok == n);
  CHECK(h.engine().stats().keys == n);
  CHECK(h.engine().stats().members_alive == n);
}
