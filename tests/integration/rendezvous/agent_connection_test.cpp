// AgentConnection against the real server over loopback: many members on
// one connection join, publish, hear events and fence as members with
// connections of their own do; one member's leave, close or supersession
// leaves the others alone; the server's end reaches every member.
#include <catch2/catch.hpp>

#include <atomic>
#include <future>
#include <thread>

#include "slipway/rendezvous/agent_connection.hpp"
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

MemberState state_of(Server& server, std::uint32_t replica) {
  for (const auto& m : server.members()) {
    if (m.identity.replica == replica) return m.state;
  }
  return MemberState::failed;
}

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 5s) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

}  // namespace

TEST_CASE("an agent's members share one connection and work as members of their own",
          "[rendezvous][integration][agent]") {
  const std::string token = generate_token();
  Server server(options_with(token));
  server.declare("actor", 8);
  server.start();
  auto agent = AgentConnection::connect(server.endpoint(), token);
  std::vector<std::unique_ptr<Client>> members;
  for (std::uint32_t r = 0; r < 8; ++r) {
    members.push_back(agent->join(Identity{"actor", r, 0, "", 0}));
    CHECK(members.back()->is_member());
  }
  CHECK(agent->members() == 8);
  CHECK(server.stats().connections == 1);
  CHECK(server.stats().channels == 8);
  CHECK(server.stats().members_alive == 8);

  std::promise<std::string> heard;
  members[3]->subscribe(static_cast<std::uint8_t>(EventKind::key_changed), "stop/",
                        [&heard, once = std::make_shared<std::once_flag>()](const Event& e) {
                          std::call_once(*once, [&] { heard.set_value(*e.value); });
                        });
  server.put("stop/actor/3", "asked");
  auto heard_future = heard.get_future();
  REQUIRE(heard_future.wait_for(5s) == std::future_status::ready);
  CHECK(heard_future.get() == "asked");

  for (std::uint32_t r = 0; r < 8; ++r) {
    members[r]->put("addr/actor/" + std::to_string(r), "h:" + std::to_string(r), Scope::task);
  }
  CHECK(members[0]->get("addr/actor/7") == "h:7");
  std::vector<std::future<FenceResult>> fences;
  for (std::uint32_t r = 0; r < 8; ++r) {
    fences.push_back(std::async(std::launch::async, [&, r] {
      return members[r]->fence("boot", MemberSet::node("actor"), "b" + std::to_string(r), 10s);
    }));
  }
  for (auto& f : fences) {
    const FenceResult result = f.get();
    REQUIRE(result.ok());
    REQUIRE(result.blobs.size() == 8);
    CHECK(result.blobs[5].blob == "b5");
  }

  // One member leaves, one is closed: the others stay and fence on.
  members[0]->leave(0);
  members[1].reset();
  CHECK(eventually([&] { return state_of(server, 1) == MemberState::failed; }));
  CHECK(state_of(server, 0) == MemberState::left);
  CHECK(agent->members() == 7);  // a member that left keeps its channel
  std::vector<std::future<FenceResult>> rest;
  for (std::uint32_t r = 2; r < 8; ++r) {
    rest.push_back(std::async(std::launch::async, [&, r] {
      return members[r]->fence("rest", MemberSet::of({{"actor", 2, 6}}), "", 10s);
    }));
  }
  for (auto& f : rest) CHECK(f.get().ok());
  CHECK(server.stats().members_alive == 6);

  // Heartbeats of the one connection keep all of them through idle time
  // (the budget is 3 x 200 ms).
  std::this_thread::sleep_for(1500ms);
  CHECK(server.stats().members_alive == 6);
}

TEST_CASE("a newer attempt elsewhere closes only its own channel of an agent",
          "[rendezvous][integration][agent]") {
  const std::string token = generate_token();
  Server server(options_with(token));
  server.start();
  auto agent = AgentConnection::connect(server.endpoint(), token);
  std::atomic<int> lost_a{0}, lost_b{0};
  ClientOptions oa, ob;
  oa.on_disconnect = [&](const Error&) { ++lost_a; };
  ob.on_disconnect = [&](const Error&) { ++lost_b; };
  auto a = agent->join(Identity{"w", 0, 0, "", 0}, oa);
  auto b = agent->join(Identity{"w", 1, 0, "", 0}, ob);
  CHECK_THROWS_AS(agent->join(Identity{"w", 1, 0, "", 0}), Error);  // duplicate

  auto newer = Client::connect(server.endpoint(), token, Identity{"w", 0, 1, "", 0});
  CHECK(eventually([&] { return lost_a.load() == 1; }));
  CHECK_FALSE(a->connected());
  CHECK_THROWS_AS(a->get("k"), Error);
  CHECK(b->connected());
  CHECK_FALSE(b->get("k"));
  CHECK(lost_b == 0);
  CHECK(agent->connected());
}

TEST_CASE("the server's end reaches every member of an agent", "[rendezvous][integration][agent]") {
  const std::string token = generate_token();
  auto server = std::make_unique<Server>(options_with(token));
  server->start();
  auto agent = AgentConnection::connect(server->endpoint(), token);
  std::atomic<int> lost{0};
  ClientOptions o;
  o.on_disconnect = [&](const Error&) { ++lost; };
  std::vector<std::unique_ptr<Client>> members;
  for (std::uint32_t r = 0; r < 4; ++r) members.push_back(agent->join(Identity{"w", r, 0, "", 0}, o));
  server->stop();
  CHECK(eventually([&] { return lost.load() == 4; }));
  CHECK_FALSE(agent->connected());
  for (auto& m : members) CHECK_THROWS_AS(m->get("k"), Error);
  CHECK_THROWS_AS(agent->join(Identity{"w", 9, 0, "", 0}), Error);
}

TEST_CASE("a wrong secret refuses the agent's connection", "[rendezvous][integration][agent][security]") {
  Server server(options_with(generate_token()));
  server.start();
  CHECK_THROWS_AS(AgentConnection::connect(server.endpoint(), generate_token()), Error);
}

TEST_CASE("join_all joins an agent's members at once, each as join() would", "[rendezvous][integration][agent]") {
  const std::string token = generate_token();
  Server server(options_with(token));
  server.declare("actor", 64);
  server.start();
  auto agent = AgentConnection::connect(server.endpoint(), token);
  auto older = Client::connect(server.endpoint(), token, Identity{"actor", 5, 2, "", 0});  // attempt 2 of 5
  std::vector<AgentConnection::Joining> joining;
  for (std::uint32_t r = 0; r < 64; ++r) joining.push_back({Identity{"actor", r, 1, "", 0}, {}});
  joining.push_back({Identity{"actor", 7, 1, "", 0}, {}});  // a second actor.7 in the same batch
  auto joined = agent->join_all(std::move(joining));
  REQUIRE(joined.size() == 65);
  for (std::uint32_t r = 0; r < 64; ++r) {
    INFO("replica " << r);
    if (r == 5) {  // its attempt 1 is older than the one the server has
      CHECK_FALSE(joined[r].client);
      REQUIRE(joined[r].error);
      CHECK(joined[r].error->status() == Status::stale_attempt);
    } else {
      REQUIRE(joined[r].client);
      CHECK(joined[r].client->is_member());
      CHECK(joined[r].client->identity().replica == r);
    }
  }
  CHECK_FALSE(joined[64].client);  // the duplicate
  CHECK(joined[64].error);
  CHECK(agent->members() == 63);
  CHECK(server.stats().connections == 2);
  CHECK(server.stats().members_alive == 64);  // 63 on the agent, actor.5 of its own

  // The members work: one puts, another reads it.
  joined[0].client->put("addr/actor/0", "h:0", Scope::task);
  CHECK(joined[63].client->get("addr/actor/0") == "h:0");
}

TEST_CASE("subscribe_async hears events and says when the server has the subscription",
          "[rendezvous][integration][agent]") {
  const std::string token = generate_token();
  Server server(options_with(token));
  server.start();
  auto agent = AgentConnection::connect(server.endpoint(), token);
  auto member = agent->join(Identity{"w", 0, 0, "", 0});
  std::promise<Status> acknowledged;
  std::promise<std::string> heard;
  member->subscribe_async(
      static_cast<std::uint8_t>(EventKind::key_changed), "stop/",
      [&heard, once = std::make_shared<std::once_flag>()](const Event& e) {
        std::call_once(*once, [&] { heard.set_value(*e.value); });
      },
      [&acknowledged](Status status, const std::string&) { acknowledged.set_value(status); });
  // A get pipelined after it finds the subscription in place: a put made
  // once the get is answered is heard.
  std::promise<bool> got;
  member->get_async("stop/w/0", [&got](Status, std::optional<std::string> v, const std::string&) { got.set_value(!v); });
  auto got_future = got.get_future();
  REQUIRE(got_future.wait_for(5s) == std::future_status::ready);
  CHECK(got_future.get());
  auto ack = acknowledged.get_future();
  REQUIRE(ack.wait_for(0s) == std::future_status::ready);  // replies come in order
  CHECK(ack.get() == Status::ok);
  server.put("stop/w/0", "asked");
  auto heard_future = heard.get_future();
  REQUIRE(heard_future.wait_for(5s) == std::future_status::ready);
  CHECK(heard_future.get() == "asked");

  // The same filter again: acknowledged at once, without asking the server.
  bool again = false;
  member->subscribe_async(static_cast<std::uint8_t>(EventKind::key_changed), "stop/", [](const Event&) {},
                          [&again](Status status, const std::string&) { again = status == Status::ok; });
  CHECK(again);
  CHECK_THROWS_AS(member->subscribe_async(0, "x", [](const Event&) {}, [](Status, const std::string&) {}), Error);
}
