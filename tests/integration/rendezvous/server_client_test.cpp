// The real server and client over loopback TCP, in one process: handshake,
// KV, pushed waits and events, async pipelining, fences, concurrent use of one
// client, IPv4/IPv6, and what clients see when the server goes away.
#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "slipway/rendezvous/client.hpp"
#include "slipway/rendezvous/server.hpp"
#include "slipway/rendezvous/token.hpp"

using namespace slipway::rendezvous;
using namespace std::chrono_literals;

namespace {

ServerOptions options_with(std::string token) {
  ServerOptions o;
  o.token = std::move(token);
  o.heartbeat_interval = 200ms;
  return o;
}

Identity id(const std::string& node, std::uint32_t replica, std::uint32_t attempt = 0) {
  return Identity{node, replica, attempt, "", 0};
}

}  // namespace

TEST_CASE("client and server talk over loopback", "[rendezvous][integration]") {
  const std::string token = generate_token();
  Server server(options_with(token));
  server.start();
  CHECK(server.endpoint() == "127.0.0.1:" + std::to_string(server.port()));
  CHECK(server.port() != 0);

  auto a = Client::connect(server.endpoint(), token, id("learner", 0));
  CHECK(a->is_member());
  CHECK(a->join_generation() == 1);
  CHECK(a->heartbeat_interval() == 200ms);
  a->put("addr/learner/0/grpc", "127.0.0.1:5000", Scope::task);
  CHECK(a->get("addr/learner/0/grpc") == "127.0.0.1:5000");
  CHECK_FALSE(a->get("missing"));
  CHECK(a->add("counter", 3, Scope::program) == 3);
  CHECK(a->compare_and_swap("leader", std::nullopt, "learner.0", Scope::program).swapped);
  CHECK_FALSE(a->compare_and_swap("leader", std::nullopt, "x", Scope::program).swapped);
  CHECK(a->erase("leader"));
  CHECK_FALSE(a->erase("leader"));
  CHECK(server.get("addr/learner/0/grpc") == "127.0.0.1:5000");

  const auto snapshot = a->members();
  REQUIRE(snapshot.members.size() == 1);
  CHECK(snapshot.members[0].identity.host.size() > 0);
  CHECK(snapshot.members[0].identity.pid == ::getpid());

  a->leave(0);
  CHECK(server.get("addr/learner/0/grpc") == "127.0.0.1:5000");  // a finished task keeps them
  const auto members = server.members();
  REQUIRE(members.size() == 1);
  CHECK(members[0].state == MemberState::left);
}

TEST_CASE("a wrong secret is refused with auth_failed", "[rendezvous][integration][security]") {
  Server server(options_with(generate_token()));
  server.start();
  try {
    Client::connect(server.endpoint(), generate_token(), id("a", 0));
    FAIL("connected with a wrong secret");
  } catch (const Error& e) {
    CHECK(e.status() == Status::auth_failed);
  }
  CHECK(server.members().empty());
}

TEST_CASE("a duplicate member is refused and told why", "[rendezvous][integration]") {
  const std::string token = generate_token();
  Server server(options_with(token));
  server.start();
  auto a = Client::connect(server.endpoint(), token, id("a", 0));
  try {
    Client::connect(server.endpoint(), token, id("a", 0));
    FAIL("joined twice");
  } catch (const Error& e) {
    CHECK(e.status() == Status::duplicate_member);
    CHECK(std::string(e.what()).find("a.0") != std::string::npos);
  }
}

TEST_CASE("wait_for is pushed when another client puts the key", "[rendezvous][integration]") {
  const std::string token = generate_token();
  Server server(options_with(token));
  server.start();
  auto waiter = Client::connect(server.endpoint(), token, id("a", 0));
  auto putter = Client::connect(server.endpoint(), token, id("b", 0));
  auto value = std::async(std::launch::async, [&] { return waiter->wait_for("addr/b/0/p", 20s); });
  while (server.stats().pending_waits == 0) std::this_thread::sleep_for(1ms);
  putter->put("addr/b/0/p", "h:1", Scope::task);
  CHECK(value.get() == "h:1");
  CHECK_FALSE(waiter->wait_for("never", 50ms));
}

TEST_CASE("events reach subscribers and the in-process observer", "[rendezvous][integration]") {
  const std::string token = generate_token();
  std::mutex m;
  std::condition_variable cv;
  std::vector<Event> observed;
  ServerOptions o = options_with(token);
  o.on_event = [&](const Event& e) {
    std::lock_guard lock(m);
    observed.push_back(e);
    cv.notify_all();
  };
  Server server(o);
  server.start();
  auto watcher = Client::connect_observer(server.endpoint(), token);
  std::vector<Event> seen;
  watcher->subscribe(kAllEvents, "addr/", [&](const Event& e) {
    std::lock_guard lock(m);
    seen.push_back(e);
    cv.notify_all();
  });
  {
    auto a = Client::connect(server.endpoint(), token, id("a", 0));
    a->put("addr/a/0/p", "h:1", Scope::task);
    a->put("other", "x", Scope::program);  // outside the prefix
    a->leave(4);
  }
  server.request_stop("done");
  std::unique_lock lock(m);
  REQUIRE(cv.wait_for(lock, 20s, [&] { return seen.size() >= 5 && observed.size() >= 3; }));
  CHECK(seen[0].kind == EventKind::member_joined);
  CHECK(seen[1].kind == EventKind::key_changed);
  CHECK(seen[1].value == "h:1");
  CHECK(seen[2].kind == EventKind::key_changed);  // withdrawn on leave
  CHECK_FALSE(seen[2].value);
  CHECK(seen[3].kind == EventKind::member_left);
  CHECK(seen[3].member.exit_status == 4);
  CHECK(seen[4].kind == EventKind::program_stopping);
  CHECK(observed[0].kind == EventKind::member_joined);
  CHECK(observed[1].kind == EventKind::member_left);
  CHECK(observed[2].kind == EventKind::program_stopping);
}

TEST_CASE("one client used from many threads, and pipelined async calls", "[rendezvous][integration]") {
  const std::string token = generate_token();
  Server server(options_with(token));
  server.start();
  auto c = Client::connect(server.endpoint(), token, id("a", 0));
  std::vector<std::thread> threads;
  std::atomic<int> errors{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const std::string key = "t" + std::to_string(t) + "/" + std::to_string(i);
        c->put(key, key, Scope::program);
        if (c->get(key) != key) ++errors;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(errors == 0);

  std::atomic<int> done{0};
  std::promise<void> all;
  const int n = 1000;
  for (int i = 0; i < n; ++i) {
    c->put_async("p" + std::to_string(i), "v", Scope::program, [&](Status s, const std::string&) {
      if (s != Status::ok) ++errors;
      if (++done == 2 * n) all.set_value();
    });
    c->get_async("p" + std::to_string(i), [&](Status s, std::optional<std::string> v, const std::string&) {
      if (s != Status::ok || v != "v") ++errors;  // in order: the put before it is applied
      if (++done == 2 * n) all.set_value();
    });
  }
  REQUIRE(all.get_future().wait_for(60s) == std::future_status::ready);
  CHECK(errors == 0);
}

TEST_CASE("fences between client threads, and a failure naming the member",
          "[rendezvous][integration]") {
  const std::string token = generate_token();
  Server server(options_with(token));
  server.declare("w", 4);
  server.start();
  std::vector<std::unique_ptr<Client>> clients;
  for (std::uint32_t r = 0; r < 4; ++r) clients.push_back(Client::connect(server.endpoint(), token, id("w", r)));
  std::vector<std::future<FenceResult>> results;
  for (std::uint32_t r = 0; r < 4; ++r) {
    results.push_back(std::async(std::launch::async, [&, r] {
      return clients[r]->fence("f", MemberSet::program(), "b" + std::to_string(r), 20s);
    }));
  }
  for (auto& f : results) {
    const auto r = f.get();
    REQUIRE(r.ok());
    REQUIRE(r.blobs.size() == 4);
    CHECK(r.blobs[3].blob == "b3");
  }
  results.clear();
  for (std::uint32_t r = 0; r < 3; ++r) {
    results.push_back(std::async(std::launch::async, [&, r] {
      return clients[r]->fence("g", MemberSet::program(), "", 0ms);
    }));
  }
  while (server.stats().pending_fences == 0) std::this_thread::sleep_for(1ms);
  clients[3].reset();  // w.3 disappears without leaving
  for (auto& f : results) {
    const auto r = f.get();
    CHECK(r.status == Status::member_failed);
    CHECK(r.message.find("w.3") != std::string::npos);
  }
}

TEST_CASE("clients see the server go away", "[rendezvous][integration][faults]") {
  const std::string token = generate_token();
  auto server = std::make_unique<Server>(options_with(token));
  server->start();
  std::promise<Status> lost;
  ClientOptions co;
  co.on_disconnect = [&](const Error& e) { lost.set_value(e.status()); };
  auto c = Client::connect(server->endpoint(), token, id("a", 0), co);
  auto pending = std::async(std::launch::async, [&] {
    try {
      c->wait_for("never", 60s);
      return Status::ok;
    } catch (const Error& e) {
      return e.status();
    }
  });
  while (server->stats().pending_waits == 0) std::this_thread::sleep_for(1ms);
  server->stop();
  CHECK(pending.get() == Status::connection_lost);
  CHECK(lost.get_future().get() == Status::connection_lost);
  CHECK_FALSE(c->connected());
  CHECK_THROWS_AS(c->get("k"), Error);
}

TEST_CASE("IPv6 loopback and a dual-stack wildcard bind", "[rendezvous][integration]") {
  const std::string token = generate_token();
  ServerOptions o = options_with(token);
  o.bind_address = "::";
  o.advertise_host = "::1";
  Server server(o);
  server.start();
  CHECK(server.endpoint() == "[::1]:" + std::to_string(server.port()));
  auto v6 = Client::connect(server.endpoint(), token, id("a", 0));
  auto v4 = Client::connect("127.0.0.1:" + std::to_string(server.port()), token, id("a", 1));
  v6->put("k", "v", Scope::program);
  CHECK(v4->get("k") == "v");
  CHECK(server.members().size() == 2);
}

// The transport sets TCP_NODELAY once, on the listener, and relies on Linux
// copying it to every accepted socket (one system call fewer per member).
TEST_CASE("accepted connections have TCP_NODELAY, copied from the listener", "[rendezvous][integration]") {
  Server server(options_with(generate_token()));
  server.start();
  const int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(client >= 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(server.port());
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(client, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0);
  char challenge[16];
  REQUIRE(::recv(client, challenge, sizeof challenge, 0) > 0);  // accepted by now
  sockaddr_in mine{};
  socklen_t len = sizeof mine;
  REQUIRE(::getsockname(client, reinterpret_cast<sockaddr*>(&mine), &len) == 0);
  // The server's end is the socket in this process whose peer is `mine`.
  int accepted = -1;
  for (int fd = 0; fd < 4096 && accepted < 0; ++fd) {
    sockaddr_in peer{};
    socklen_t plen = sizeof peer;
    if (fd == client || ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &plen) != 0) continue;
    if (peer.sin_family == AF_INET && peer.sin_port == mine.sin_port && peer.sin_addr.s_addr == mine.sin_addr.s_addr) {
      accepted = fd;
    }
  }
  REQUIRE(accepted >= 0);
  int nodelay = 0;
  socklen_t optlen = sizeof nodelay;
  REQUIRE(::getsockopt(accepted, IPPROTO_TCP, TCP_NODELAY, &nodelay, &optlen) == 0);
  CHECK(nodelay != 0);
  ::close(client);
}

TEST_CASE("a wildcard bind advertises this host's name", "[rendezvous][integration]") {
  ServerOptions o = options_with(generate_token());
  o.bind_address = "0.0.0.0";
  Server server(o);
  server.start();
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  CHECK(server.endpoint() == std::string(host) + ":" + std::to_string(server.port()));
}

TEST_CASE("binding a taken port fails with the address in the message", "[rendezvous][integration]") {
  Server first(options_with(generate_token()));
  first.start();
  ServerOptions o = options_with(generate_token());
  o.port = first.port();
  Server second(o);
  CHECK_THROWS_WITH(second.start(), Catch::Contains("127.0.0.1:" + std::to_string(first.port())));
}

TEST_CASE("a blocking call from a completion callback is refused, not deadlocked",
          "[rendezvous][integration]") {
  const std::string token = generate_token();
  Server server(options_with(token));
  server.start();
  auto c = Client::connect(server.endpoint(), token, id("a", 0));
  std::promise<Status> outcome;
  c->get_async("k", [&](Status, std::optional<std::string>, const std::string&) {
    try {
      c->get("k");
      outcome.set_value(Status::ok);
    } catch (const Error& e) {
      outcome.set_value(e.status());
    }
  });
  CHECK(outcome.get_future().get() == Status::invalid_request);
  c->put("k", "v", Scope::program);  // the client is fine afterwards
  CHECK(c->get("k") == "v");
}

TEST_CASE("events keep flowing while a thread makes blocking calls", "[rendezvous][integration]") {
  const std::string token = generate_token();
  Server server(options_with(token));
  server.start();
  auto c = Client::connect(server.endpoint(), token, id("a", 0));
  std::atomic<int> seen{0};
  c->subscribe(static_cast<std::uint8_t>(EventKind::key_changed), "ev/", [&](const Event&) { ++seen; });
  auto other = Client::connect(server.endpoint(), token, id("b", 0));
  for (int i = 0; i < 200; ++i) {
    other->put("ev/" + std::to_string(i), "x", Scope::program);
    c->get("ev/" + std::to_string(i));  // c reads for itself, events included
  }
  for (int i = 0; i < 2000 && seen < 200; ++i) std::this_thread::sleep_for(5ms);
  CHECK(seen == 200);
}

TEST_CASE("a member blocked in a long wait keeps sending heartbeats", "[rendezvous][integration][faults]") {
  // Waits answered after many heartbeat budgets, with events arriving all
  // along: the member stays alive (fake_server_test.cpp has the case of a
  // quick call whose reply is late).
  const std::string token = generate_token();
  ServerOptions o = options_with(token);
  o.heartbeat_interval = 50ms;  // failed after 150 ms of silence
  Server server(o);
  server.start();
  auto waiter = Client::connect(server.endpoint(), token, id("a", 0));
  auto putter = Client::connect(server.endpoint(), token, id("b", 0));
  // Events keep arriving, so the reader thread is woken while the blocking
  // call holds the socket.
  std::atomic<int> seen{0};
  waiter->subscribe(static_cast<std::uint8_t>(EventKind::key_changed), "ev/", [&](const Event&) { ++seen; });
  std::atomic<bool> streaming{true};
  std::thread stream([&] {
    for (int i = 0; streaming; ++i) {
      putter->put("ev/" + std::to_string(i % 16), "x", Scope::program);
      std::this_thread::sleep_for(1ms);
    }
  });
  for (int round = 0; round < 3; ++round) {
    const std::string key = "late/" + std::to_string(round);
    auto value = std::async(std::launch::async, [&] { return waiter->wait_for(key, 20s); });
    std::this_thread::sleep_for(500ms);  // over three budgets
    putter->put(key, "v", Scope::program);
    CHECK(value.get() == "v");
  }
  streaming = false;
  stream.join();
  CHECK(seen > 0);
  for (const auto& m : server.members()) {
    INFO(m.identity.name() << ": " << m.reason);
    CHECK(m.state == MemberState::alive);
  }
}
