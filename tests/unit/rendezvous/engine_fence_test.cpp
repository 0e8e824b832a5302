// Engine: fences (barrier + allgather) over nodes, ranges and the declared
// program; failure of a member mid-fence fails it for everyone at once.
#include <random>

#include "engine_harness.hpp"

using namespace slipway::rendezvous;
using namespace slipway::rendezvous::test;

namespace {

wire::Fence fence(Harness& h, const std::string& name, MemberSet set, std::string blob,
                  std::uint32_t timeout_ms = 0, bool collect = true) {
  return wire::Fence{h.next_id(), name, std::move(set), collect, std::move(blob), timeout_ms};
}

}  // namespace

TEST_CASE("a fence completes when all members entered and returns every blob in order",
          "[rendezvous][engine][fence]") {
  Harness h;
  std::vector<ConnId> conns;
  for (std::uint32_t r = 0; r < 4; ++r) conns.push_back(h.join("w", r));
  const MemberSet set = MemberSet::node("w", 4);
  for (std::uint32_t r : {2u, 0u, 3u}) {
    h.send(conns[r], fence(h, "f", set, "blob" + std::to_string(r)));
    CHECK(h.replies_of(conns[r]).empty());
  }
  h.send(conns[1], fence(h, "f", set, "blob1"));
  for (std::uint32_t r = 0; r < 4; ++r) {
    const auto replies = h.replies_of(conns[r]);
    REQUIRE(replies.size() == 1);
    CHECK(replies[0].status == Status::ok);
    const auto& blobs = std::get<wire::FenceBody>(replies[0].body).blobs;
    REQUIRE(blobs.size() == 4);
    for (std::uint32_t k = 0; k < 4; ++k) CHECK(blobs[k] == FenceBlob{"w", k, "blob" + std::to_string(k)});
  }
  CHECK(h.engine().stats().pending_fences == 0);
  // The same name can be used again for the next round.
  for (std::uint32_t r = 0; r < 4; ++r) h.send(conns[r], fence(h, "f", set, ""));
  for (std::uint32_t r = 0; r < 4; ++r) CHECK(h.replies_of(conns[r]).size() == 1);
}

TEST_CASE("a program-wide fence covers every declared node", "[rendezvous][engine][fence]") {
  Harness h;
  h.engine().declare("learner", 1);
  h.engine().declare("actor", 2);
  const ConnId l = h.join("learner", 0);
  const ConnId a0 = h.join("actor", 0);
  const ConnId a1 = h.join("actor", 1);
  h.send(l, fence(h, "all", MemberSet::program(), "L"));
  h.send(a0, fence(h, "all", MemberSet::program(), "A0"));
  CHECK(h.replies_of(l).empty());
  h.send(a1, fence(h, "all", MemberSet::program(), "A1"));
  const auto replies = h.replies_of(l);
  REQUIRE(replies.size() == 1);
  const auto& blobs = std::get<wire::FenceBody>(replies[0].body).blobs;
  REQUIRE(blobs.size() == 3);
  CHECK(blobs[0] == FenceBlob{"actor", 0, "A0"});  // nodes in name order
  CHECK(blobs[2] == FenceBlob{"learner", 0, "L"});
}

TEST_CASE("a fence without collect is a plain barrier", "[rendezvous][engine][fence]") {
  Harness h;
  const ConnId a = h.join("n", 0);
  const ConnId b = h.join("n", 1);
  h.send(a, fence(h, "b", MemberSet::node("n", 2), "ignored", 0, false));
  h.send(b, fence(h, "b", MemberSet::node("n", 2), "ignored", 0, false));
  const auto r = h.replies_of(a);
  REQUIRE(r.size() == 1);
  CHECK(std::get<wire::FenceBody>(r[0].body).blobs.empty());
}

TEST_CASE("a member dying mid-fence fails the fence for everyone, naming it",
          "[rendezvous][engine][fence][faults]") {
  Harness h;
  std::vector<ConnId> conns;
  for (std::uint32_t r = 0; r < 3; ++r) conns.push_back(h.join("w", r));
  h.send(conns[0], fence(h, "f", MemberSet::node("w", 3), "x"));
  h.send(conns[1], fence(h, "f", MemberSet::node("w", 3), "x"));
  h.engine().disconnected(conns[2], h.now());
  for (int i : {0, 1}) {
    const auto replies = h.replies_of(conns[static_cast<std::size_t>(i)]);
    REQUIRE(replies.size() == 1);
    CHECK(replies[0].status == Status::member_failed);
    CHECK(replies[0].message.find("w.2") != std::string::npos);
    CHECK(replies[0].message.find("connection lost") != std::string::npos);
  }
  CHECK(h.engine().stats().pending_fences == 0);
}

TEST_CASE("a fence over an already dead member fails at once", "[rendezvous][engine][fence][faults]") {
  Harness h;
  const ConnId a = h.join("w", 0);
  const ConnId b = h.join("w", 1);
  REQUIRE(h.request(b, wire::Leave{h.next_id(), 3}).status == Status::ok);
  const auto r = h.request(a, fence(h, "f", MemberSet::node("w", 2), ""));
  CHECK(r.status == Status::member_failed);
  CHECK(r.message.find("w.1 left with exit status 3") != std::string::npos);
}

TEST_CASE("a fence times out naming the members that never came", "[rendezvous][engine][fence]") {
  Harness h;
  const ConnId a = h.join("w", 0);
  h.send(a, fence(h, "f", MemberSet::node("w", 12), "", 1000));
  for (int i = 0; i < 12; ++i) {
    h.advance(std::chrono::milliseconds(100));
    h.send(a, wire::Heartbeat{});
  }
  const auto replies = h.replies_of(a);
  REQUIRE(replies.size() == 1);
  CHECK(replies[0].status == Status::timeout);
  CHECK(replies[0].message.find("w.1, w.2") != std::string::npos);
  CHECK(replies[0].message.find("(+3 more)") != std::string::npos);
}

TEST_CASE("participants must agree on the member set", "[rendezvous][engine][fence]") {
  Harness h;
  const ConnId a = h.join("w", 0);
  const ConnId b = h.join("w", 1);
  h.send(a, fence(h, "f", MemberSet::node("w", 2), ""));
  CHECK(h.request(b, fence(h, "f", MemberSet::of({{"w", 0, 3}}), "")).status == Status::fence_mismatch);
  CHECK(h.request(b, fence(h, "f", MemberSet::node("w", 2), "", 0, false)).status == Status::fence_mismatch);
  const ConnId c = h.join("x", 0);
  CHECK(h.request(c, fence(h, "f", MemberSet::node("w", 2), "")).status == Status::invalid_request);
  CHECK(h.request(a, fence(h, "g", MemberSet::of({{"w", 0, 2}, {"w", 1, 1}}), "")).status == Status::invalid_request);
  CHECK(h.request(a, fence(h, "h", MemberSet::node("undeclared"), "")).status == Status::invalid_request);
  CHECK(h.request(a, fence(h, "i", MemberSet::program(), "")).status == Status::invalid_request);
}

TEST_CASE("a fence's total blob size is bounded", "[rendezvous][engine][fence]") {
  EngineOptions o = Harness::defaults();
  o.limits.max_fence_bytes = 100;
  Harness h(o);
  const ConnId a = h.join("w", 0);
  const ConnId b = h.join("w", 1);
  h.send(a, fence(h, "f", MemberSet::node("w", 3), std::string(60, 'a')));
  CHECK(h.replies_of(a).empty());
  h.send(b, fence(h, "f", MemberSet::node("w", 3), std::string(60, 'b')));
  CHECK(h.replies_of(a)[0].status == Status::limit_exceeded);
  CHECK(h.replies_of(b)[0].status == Status::limit_exceeded);
}

TEST_CASE("random member deaths never leave a fence hanging", "[rendezvous][engine][fence][faults]") {
  std::mt19937 rng(12345);
  for (int round = 0; round < 50; ++round) {
    Harness h;
    const std::uint32_t n = 2 + rng() % 14;
    std::vector<ConnId> conns;
    for (std::uint32_t r = 0; r < n; ++r) conns.push_back(h.join("w", r));
    std::vector<bool> dead(n, false), entered(n, false);
    bool any_dead = false;
    std::vector<std::uint32_t> order(n);
    for (std::uint32_t r = 0; r < n; ++r) order[r] = r;
    std::shuffle(order.begin(), order.end(), rng);
    for (std::uint32_t r : order) {
      if (rng() % 5 == 0) {  // this member dies instead of entering (before or after others)
        h.engine().disconnected(conns[r], h.now());
        dead[r] = any_dead = true;
      } else {
        h.send(conns[r], fence(h, "f", MemberSet::node("w", n), std::to_string(r)));
        entered[r] = true;
      }
    }
    for (std::uint32_t r = 0; r < n; ++r) {
      if (dead[r]) continue;
      const auto replies = h.replies_of(conns[r]);
      CAPTURE(round, n, r);
      REQUIRE(replies.size() == 1);  // exactly one answer: never none, never two
      CHECK(replies[0].status == (any_dead ? Status::member_failed : Status::ok));
    }
    CHECK(h.engine().stats().pending_fences == 0);
    CHECK(h.transport.sends_after_close == 0);
  }
}
