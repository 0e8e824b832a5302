// Engine: the key-value store with scopes, withdrawal of a dead task's keys,
// pushed wait-for-key, compare-and-swap, atomic add and key events.
#include "engine_harness.hpp"

using namespace slipway::rendezvous;
using namespace slipway::rendezvous::test;

namespace {
std::optional<std::string> value_of(const wire::Reply& r) { return std::get<wire::ValueBody>(r.body).value; }
}  // namespace

TEST_CASE("put then get, get of a missing key", "[rendezvous][engine][kv]") {
  Harness h;
  const ConnId a = h.join("a", 0);
  CHECK(h.request(a, wire::Put{h.next_id(), Scope::program, "k", "v"}).status == Status::ok);
  const auto got = h.request(a, wire::Get{h.next_id(), "k"});
  CHECK(got.status == Status::ok);
  CHECK(value_of(got) == "v");
  const auto missing = h.request(a, wire::Get{h.next_id(), "nope"});
  CHECK(missing.status == Status::not_found);
  CHECK_FALSE(value_of(missing));
  CHECK(h.request(a, wire::Put{h.next_id(), Scope::program, "", "v"}).status == Status::invalid_request);
}

TEST_CASE("a failed task's keys are withdrawn, program keys stay", "[rendezvous][engine][kv][faults]") {
  Harness h;
  const ConnId watcher = h.observer();
  REQUIRE(h.request(watcher, wire::Subscribe{h.next_id(), static_cast<std::uint8_t>(EventKind::key_changed), "addr/"}).status == Status::ok);
  const ConnId a = h.join("server", 0);
  REQUIRE(h.request(a, wire::Put{h.next_id(), Scope::task, "addr/server/0/grpc", "10.0.0.5:5000"}).status == Status::ok);
  REQUIRE(h.request(a, wire::Put{h.next_id(), Scope::program, "config", "x"}).status == Status::ok);
  h.engine().disconnected(a, h.now());
  CHECK_FALSE(h.engine().get("addr/server/0/grpc"));
  CHECK(h.engine().get("config") == "x");
  const auto events = h.events_of(watcher);
  REQUIRE(events.size() == 2);
  CHECK(events[0].value == "10.0.0.5:5000");
  CHECK(events[1].key == "addr/server/0/grpc");
  CHECK_FALSE(events[1].value);  // withdrawn
}

TEST_CASE("a task key taken over by the next attempt is not withdrawn with the old one",
          "[rendezvous][engine][kv]") {
  Harness h;
  const ConnId a0 = h.join("s", 0, 0);
  REQUIRE(h.request(a0, wire::Put{h.next_id(), Scope::task, "addr/s/0/p", "old"}).status == Status::ok);
  const ConnId a1 = h.join("s", 0, 1);  // supersedes attempt 0, whose key goes
  CHECK_FALSE(h.engine().get("addr/s/0/p"));
  REQUIRE(h.request(a1, wire::Put{h.next_id(), Scope::task, "addr/s/0/p", "new"}).status == Status::ok);
  CHECK(h.request(a1, wire::Leave{h.next_id(), 3}).status == Status::ok);
  CHECK_FALSE(h.engine().get("addr/s/0/p"));  // leaving with a failure withdraws too
}

TEST_CASE("a task that finished (left with status 0) keeps its task keys",
          "[rendezvous][engine][kv]") {
  // A peer that starts after it ended must not wait for its address forever.
  Harness h;
  const ConnId a = h.join("setup", 0);
  REQUIRE(h.request(a, wire::Put{h.next_id(), Scope::task, "addr/setup/0/p", "h:1"}).status == Status::ok);
  CHECK(h.request(a, wire::Leave{h.next_id(), 0}).status == Status::ok);
  CHECK(h.engine().get("addr/setup/0/p") == "h:1");
  const ConnId late = h.join("user", 0);
  auto reply = h.request(late, wire::WaitFor{h.next_id(), "addr/setup/0/p", 1000});
  CHECK(reply.status == Status::ok);
}

TEST_CASE("node keys live while the node has a live member", "[rendezvous][engine][kv]") {
  Harness h;
  const ConnId a = h.join("n", 0);
  const ConnId b = h.join("n", 1);
  REQUIRE(h.request(a, wire::Put{h.next_id(), Scope::node, "n/leader", "n.0"}).status == Status::ok);
  h.engine().disconnected(a, h.now());
  CHECK(h.engine().get("n/leader") == "n.0");
  h.engine().disconnected(b, h.now());
  CHECK_FALSE(h.engine().get("n/leader"));
}

TEST_CASE("observers put program keys only", "[rendezvous][engine][kv]") {
  Harness h;
  const ConnId o = h.observer();
  CHECK(h.request(o, wire::Put{h.next_id(), Scope::task, "k", "v"}).status == Status::not_member);
  CHECK(h.request(o, wire::Put{h.next_id(), Scope::program, "k", "v"}).status == Status::ok);
}

TEST_CASE("wait_for is answered when the key is put, without polling", "[rendezvous][engine][kv]") {
  Harness h;
  const ConnId waiter = h.join("a", 0);
  const ConnId putter = h.join("b", 0);
  const std::uint32_t id = h.next_id();
  h.send(waiter, wire::WaitFor{id, "addr/b/0/p", 10000});
  CHECK(h.replies_of(waiter).empty());
  CHECK(h.engine().stats().pending_waits == 1);
  REQUIRE(h.request(putter, wire::Put{h.next_id(), Scope::task, "addr/b/0/p", "h:1"}).status == Status::ok);
  const auto replies = h.replies_of(waiter);
  REQUIRE(replies.size() == 1);
  CHECK(replies[0].id == id);
  CHECK(value_of(replies[0]) == "h:1");
  CHECK(h.engine().stats().pending_waits == 0);
  // Present already: answered at once.
  CHECK(value_of(h.request(waiter, wire::WaitFor{h.next_id(), "addr/b/0/p", 10000})) == "h:1");
}

TEST_CASE("wait_for times out with a clear status", "[rendezvous][engine][kv]") {
  Harness h;
  const ConnId a = h.join("a", 0);
  const std::uint32_t id = h.next_id();
  h.send(a, wire::WaitFor{id, "never", 250});
  h.advance(std::chrono::milliseconds(200));
  h.send(a, wire::Heartbeat{});
  CHECK(h.replies_of(a).empty());
  h.advance(std::chrono::milliseconds(60));
  const auto replies = h.replies_of(a);
  REQUIRE(replies.size() == 1);
  CHECK(replies[0].status == Status::timeout);
  CHECK(replies[0].message.find("never") != std::string::npos);
  CHECK(h.request(a, wire::WaitFor{h.next_id(), "never", 0}).status == Status::timeout);
}

TEST_CASE("a dropped waiter leaves nothing behind", "[rendezvous][engine][kv][faults]") {
  Harness h;
  const ConnId a = h.join("a", 0);
  for (int i = 0; i < 5; ++i) h.send(a, wire::WaitFor{h.next_id(), "k" + std::to_string(i), 10000});
  CHECK(h.engine().stats().pending_waits == 5);
  h.engine().disconnected(a, h.now());
  CHECK(h.engine().stats().pending_waits == 0);
  h.engine().put("k1", "v");
  h.advance(std::chrono::milliseconds(20000));
  CHECK(h.transport.sends_after_close == 0);
}

TEST_CASE("pending waits per connection are bounded", "[rendezvous][engine][kv]") {
  EngineOptions o = Harness::defaults();
  o.limits.max_waits_per_connection = 2;
  Harness h(o);
  const ConnId a = h.join("a", 0);
  h.send(a, wire::WaitFor{h.next_id(), "x", 10000});
  h.send(a, wire::WaitFor{h.next_id(), "y", 10000});
  CHECK(h.request(a, wire::WaitFor{h.next_id(), "z", 10000}).status == Status::limit_exceeded);
}

TEST_CASE("compare-and-swap", "[rendezvous][engine][kv]") {
  Harness h;
  const ConnId a = h.join("a", 0);
  auto r = h.request(a, wire::CompareAndSwap{h.next_id(), Scope::program, "leader", std::nullopt, "a.0"});
  CHECK(std::get<wire::CasBody>(r.body) == wire::CasBody{true, "a.0"});
  r = h.request(a, wire::CompareAndSwap{h.next_id(), Scope::program, "leader", std::nullopt, "b.0"});
  CHECK(std::get<wire::CasBody>(r.body) == wire::CasBody{false, "a.0"});
  r = h.request(a, wire::CompareAndSwap{h.next_id(), Scope::program, "leader", std::string("a.0"), "c.0"});
  CHECK(std::get<wire::CasBody>(r.body) == wire::CasBody{true, "c.0"});
  r = h.request(a, wire::CompareAndSwap{h.next_id(), Scope::program, "absent", std::string("x"), "y"});
  CHECK(std::get<wire::CasBody>(r.body) == wire::CasBody{false, std::nullopt});
}

TEST_CASE("atomic add", "[rendezvous][engine][kv]") {
  Harness h;
  const ConnId a = h.join("a", 0);
  CHECK(std::get<wire::AddBody>(h.request(a, wire::Add{h.next_id(), Scope::program, "n", 5}).body).value == 5);
  CHECK(std::get<wire::AddBody>(h.request(a, wire::Add{h.next_id(), Scope::program, "n", -7}).body).value == -2);
  CHECK(h.engine().get("n") == "-2");
  h.engine().put("text", "abc");
  CHECK(h.request(a, wire::Add{h.next_id(), Scope::program, "text", 1}).status == Status::not_integer);
  h.engine().put("big", std::to_string(INT64_MAX));
  CHECK(h.request(a, wire::Add{h.next_id(), Scope::program, "big", 1}).status == Status::invalid_request);
}

TEST_CASE("erase and its event", "[rendezvous][engine][kv]") {
  Harness h;
  const ConnId a = h.join("a", 0);
  REQUIRE(h.request(a, wire::Subscribe{h.next_id(), static_cast<std::uint8_t>(EventKind::key_changed), "k"}).status == Status::ok);
  h.engine().put("k", "v");
  h.engine().put("other", "v");  // outside the prefix
  CHECK(h.request(a, wire::Erase{h.next_id(), "k"}).status == Status::ok);
  CHECK(h.request(a, wire::Erase{h.next_id(), "k"}).status == Status::not_found);
  const auto events = h.events_of(a);
  REQUIRE(events.size() == 2);
  CHECK(events[0].value == "v");
  CHECK_FALSE(events[1].value);
}

TEST_CASE("the store's totals are bounded", "[rendezvous][engine][kv]") {
  EngineOptions o = Harness::defaults();
  o.limits.max_keys = 2;
  o.limits.max_kv_bytes = 100;
  Harness h(o);
  const ConnId a = h.join("a", 0);
  CHECK(h.request(a, wire::Put{h.next_id(), Scope::program, "k1", "v"}).status == Status::ok);
  CHECK(h.request(a, wire::Put{h.next_id(), Scope::program, "k2", "v"}).status == Status::ok);
  CHECK(h.request(a, wire::Put{h.next_id(), Scope::program, "k3", "v"}).status == Status::limit_exceeded);
  CHECK(h.request(a, wire::Put{h.next_id(), Scope::program, "k1", std::string(200, 'x')}).status == Status::limit_exceeded);
  CHECK(h.request(a, wire::Put{h.next_id(), Scope::program, "k1", "replaced"}).status == Status::ok);
  CHECK(h.engine().stats().kv_bytes == 2 + 8 + 2 + 1);
}
