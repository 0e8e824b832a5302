// The rendezvous backend against the Backend contract
// (tests/unit/pmix_server/backend_contract.hpp), over a real rendezvous server and
// member clients on loopback.
#include <catch2/catch.hpp>
#include <map>

#include "backend_contract.hpp"
#include "slipway/pmix/rendezvous_backend.hpp"
#include "slipway/rendezvous/server.hpp"
#include "slipway/rendezvous/token.hpp"

using namespace slipway;
using namespace slipway::pmix;
using namespace slipway::pmix::contract;
using namespace std::chrono_literals;

namespace {

struct RendezvousHarness : Harness {
  std::string token = rendezvous::generate_token();
  std::unique_ptr<rendezvous::Server> server;
  std::map<std::string, std::unique_ptr<rendezvous::Client>> clients;

  RendezvousHarness() {
    rendezvous::ServerOptions o;
    o.token = token;
    o.heartbeat_interval = 200ms;
    server = std::make_unique<rendezvous::Server>(o);
    server->start();
  }
  ~RendezvousHarness() override {
    clients.clear();
    server->stop();
  }
  std::shared_ptr<Backend> member(const std::string& node, std::uint32_t replica) override {
    auto& client = clients[node + "." + std::to_string(replica)];
    client = rendezvous::Client::connect(server->endpoint(), token,
                                         rendezvous::Identity{node, replica, 0, "", 0});
    return rendezvous_backend(*client);
  }
  void end(const std::string& node, std::uint32_t replica, bool failed, int exit_status) override {
    auto it = clients.find(node + "." + std::to_string(replica));
    REQUIRE(it != clients.end());
    if (!failed) it->second->leave(exit_status);
    clients.erase(it);  // without leave(): reported failed ("connection lost")
  }
  std::optional<std::string> value(const std::string& key) override { return server->get(key); }
  std::size_t pending_fences() override { return server->stats().pending_fences; }
};

}  // namespace

TEST_CASE("backend: rendezvous fence completes with blobs in member order", "[pmix][backend]") {
  RendezvousHarness h;
  fence_completes_in_member_order(h);
}

TEST_CASE("backend: rendezvous fence fails when a member ends", "[pmix][backend]") {
  RendezvousHarness h;
  fence_fails_when_a_member_ends(h);
}

TEST_CASE("backend: rendezvous fence times out", "[pmix][backend]") {
  RendezvousHarness h;
  fence_times_out(h);
}

TEST_CASE("backend: rendezvous keys (create, task scope, erase)", "[pmix][backend]") {
  RendezvousHarness h;
  keys_create_and_task_scope(h);
}

TEST_CASE("backend: rendezvous wait_for answers or times out", "[pmix][backend]") {
  RendezvousHarness h;
  wait_for_answers_or_times_out(h);
}

TEST_CASE("backend: rendezvous watchers hear members end", "[pmix][backend]") {
  RendezvousHarness h;
  watchers_hear_members_end(h);
}
