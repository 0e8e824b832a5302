// The wire codec: every message survives a round trip; every bound, unknown
// enum, truncation and trailing byte is refused.
#include <catch2/catch.hpp>

#include "slipway/rendezvous/wire.hpp"
#include "wire_support.hpp"

using namespace slipway::rendezvous;
using namespace slipway::rendezvous::wire;
using test::body_of;
using test::round_trip;

namespace {

MemberRecord sample_record() {
  MemberRecord r;
  r.identity = Identity{"learner", 3, 1, "host-a", 4242};
  r.state = MemberState::left;
  r.generation = 7;
  r.joined_unix_ms = 1700000000000;
  r.ended_unix_ms = 1700000001000;
  r.exit_status = -2;
  r.reason = "";
  return r;
}

std::vector<Message> all_messages() {
  Challenge c;
  c.server_nonce[0] = 9;
  c.heartbeat_interval_ms = 500;
  c.miss_budget = 3;
  Hello h;
  h.role = Role::member;
  h.identity = Identity{"actor", 12, 2, "node-7", 99};
  h.client_nonce[31] = 1;
  h.mac[5] = 200;
  Welcome w{Status::ok, "", {}, 4};
  Fence f;
  f.id = 77;
  f.name = "pmix/fence/1";
  f.members = MemberSet::of({{"actor", 0, 0}, {"learner", 2, 3}});
  f.collect = true;
  f.blob = std::string("\0\1\2", 3);
  f.timeout_ms = 30000;
  Event joined;
  joined.kind = EventKind::member_joined;
  joined.member = sample_record();
  Event key;
  key.kind = EventKind::key_changed;
  key.key = "addr/learner/0/grpc";
  key.value = "10.0.0.1:5000";
  Event erased;
  erased.kind = EventKind::key_changed;
  erased.key = "gone";
  Event stop;
  stop.kind = EventKind::program_stopping;
  stop.reason = "user pressed ^C";
  return {
      c,
      h,
      w,
      Heartbeat{},
      Put{1, Scope::task, "addr/a/0/p", "h:1"},
      Get{2, "k"},
      WaitFor{3, "k", 1000},
      CompareAndSwap{4, Scope::node, "k", std::nullopt, "v"},
      CompareAndSwap{5, Scope::program, "k", std::string("old"), "new"},
      Add{6, Scope::program, "counter", -5},
      Erase{7, "k"},
      f,
      Fence{8, "barrier", MemberSet::program(), false, "", 0},
      Subscribe{9, kMemberEvents, ""},
      Unsubscribe{10, static_cast<std::uint8_t>(EventKind::key_changed), "addr/"},
      Leave{11, 3},
      RequestStop{12, "done"},
      ListMembers{13},
      Declare{14, "actor", 256},
      Reply{15, Status::ok, "", std::monostate{}},
      Reply{16, Status::ok, "", ValueBody{std::string("value")}},
      Reply{17, Status::not_found, "no such key", ValueBody{std::nullopt}},
      Reply{18, Status::ok, "", CasBody{true, std::string("new")}},
      Reply{19, Status::ok, "", AddBody{-42}},
      Reply{20, Status::ok, "", FenceBody{{{"a", 0, "x"}, {"a", 1, ""}}}},
      Reply{21, Status::ok, "", MembersBody{{sample_record()}, true, "stop"}},
      Reply{22, Status::member_failed, "actor.3 failed: connection lost", std::monostate{}},
      joined,
      key,
      erased,
      stop,
  };
}

wire::Message decode_frame(const std::string& frame, const Limits& limits, std::string& error,
                           bool& ok) {
  wire::Message out;
  ok = wire::decode(body_of(frame), limits, out, error);
  return out;
}

}  // namespace

TEST_CASE("every message survives a round trip", "[rendezvous][wire]") {
  for (const auto& m : all_messages()) {
    CAPTURE(m.index());
    CHECK(round_trip(m) == m);
  }
}

TEST_CASE("a truncated frame is refused at every length", "[rendezvous][wire]") {
  for (const auto& m : all_messages()) {
    std::string frame;
    encode(m, frame);
    const auto body = body_of(frame);
    for (std::size_t len = 0; len < body.size(); ++len) {
      wire::Message out;
      std::string error;
      CAPTURE(m.index(), len);
      CHECK_FALSE(decode(body.first(len), Limits{}, out, error));
      CHECK_FALSE(error.empty());
    }
  }
}

TEST_CASE("trailing bytes and unknown types are refused", "[rendezvous][wire]") {
  std::string frame;
  encode(Get{1, "k"}, frame);
  frame.push_back('x');
  std::string error;
  bool ok = true;
  decode_frame(frame, Limits{}, error, ok);
  CHECK_FALSE(ok);
  CHECK(error.find("trailing") != std::string::npos);

  const std::uint8_t unknown[] = {200};
  wire::Message out;
  CHECK_FALSE(decode(unknown, Limits{}, out, error));
  CHECK(error.find("unknown message type") != std::string::npos);
}

TEST_CASE("unknown enum values are refused", "[rendezvous][wire]") {
  std::string frame;
  encode(Put{1, Scope::task, "k", "v"}, frame);
  frame[4 + 1 + 4] = 7;  // scope byte
  std::string error;
  bool ok = true;
  decode_frame(frame, Limits{}, error, ok);
  CHECK_FALSE(ok);
  CHECK(error.find("scope") != std::string::npos);

  frame.clear();
  encode(Subscribe{1, kAllEvents, ""}, frame);
  frame[4 + 1 + 4] = static_cast<char>(64);  // mask bit out of range
  decode_frame(frame, Limits{}, error, ok);
  CHECK_FALSE(ok);
}

TEST_CASE("lengths above the configured bounds are refused", "[rendezvous][wire]") {
  Limits limits;
  limits.max_key_bytes = 8;
  limits.max_value_bytes = 16;
  limits.max_frame_bytes = 64;
  std::string error;
  bool ok = true;

  std::string frame;
  encode(Reply{1, Status::ok, "", ValueBody{std::string(17, 'v')}}, frame);
  decode_frame(frame, limits, error, ok);
  CHECK_FALSE(ok);
  CHECK(error.find("value: length 17 exceeds the bound 16") != std::string::npos);

  frame.clear();
  encode(Event{EventKind::key_changed, {}, "123456789", std::nullopt, ""}, frame);
  decode_frame(frame, limits, error, ok);
  CHECK_FALSE(ok);
  CHECK(error.find("key: length 9 exceeds the bound 8") != std::string::npos);

  // Keys and values of requests are bounded by the frame only (the server
  // answers limit_exceeded itself, the connection goes on).
  frame.clear();
  encode(Put{1, Scope::program, "123456789", std::string(17, 'v')}, frame);
  decode_frame(frame, limits, error, ok);
  CHECK(ok);
  frame.clear();
  encode(Put{1, Scope::program, "k", std::string(65, 'v')}, frame);
  decode_frame(frame, limits, error, ok);
  CHECK_FALSE(ok);
  CHECK(error.find("value: length 65 exceeds the bound 64") != std::string::npos);

  limits = Limits{};
  limits.max_ranges = 1;
  frame.clear();
  encode(Fence{1, "f", MemberSet::of({{"a", 0, 1}, {"b", 0, 1}}), false, "", 0}, frame);
  decode_frame(frame, limits, error, ok);
  CHECK_FALSE(ok);
  CHECK(error.find("ranges: count 2 exceeds the bound 1") != std::string::npos);
}

TEST_CASE("a count that promises more than the frame holds is refused before allocating",
          "[rendezvous][wire]") {
  // reply, id, status ok, empty message, members body, count 1e6, no records.
  std::string frame;
  encode(Reply{1, Status::ok, "", MembersBody{}}, frame);
  std::string body = frame.substr(4);
  const std::size_t count_at = 1 + 4 + 1 + 4 + 1;
  body[count_at] = '\x40';
  body[count_at + 1] = '\x42';
  body[count_at + 2] = '\x0f';
  wire::Message out;
  std::string error;
  CHECK_FALSE(decode(std::span(reinterpret_cast<const std::uint8_t*>(body.data()), body.size()),
                     Limits{}, out, error));
  CHECK(error.find("runs past the frame") != std::string::npos);
}

TEST_CASE("a shared fence reply decodes as one reply frame", "[rendezvous][wire]") {
  const std::vector<FenceBlob> blobs = {{"a", 0, "blob-a0"}, {"b", 4, std::string(1000, 'z')}};
  const std::string shared = encode_fence_body(blobs);
  const std::string frame = encode_shared_reply_prefix(123, shared.size()) + shared;
  wire::Message out;
  std::string error;
  REQUIRE(decode(body_of(frame), Limits{}, out, error));
  const auto& reply = std::get<Reply>(out);
  CHECK(reply.id == 123);
  CHECK(reply.status == Status::ok);
  CHECK(std::get<FenceBody>(reply.body).blobs == blobs);
}

TEST_CASE("the client MAC binds the nonces and the identity", "[rendezvous][wire]") {
  const HmacKey key("secret");
  Nonce server{};
  server[0] = 1;
  Hello hello;
  hello.identity = Identity{"a", 0, 0, "h", 1};
  const Digest mac = client_mac(key, server, hello);
  CHECK(client_mac(key, server, hello) == mac);
  Hello other = hello;
  other.identity.replica = 1;
  CHECK(client_mac(key, server, other) != mac);
  Nonce server2 = server;
  server2[1] = 1;
  CHECK(client_mac(key, server2, hello) != mac);
  CHECK(client_mac(HmacKey("other"), server, hello) != mac);
  CHECK(server_mac(key, server, hello.client_nonce) != mac);
}
