// A program's rendezvous for the channels integration tests: a real
// rendezvous service on loopback, observers for courier directories, and
// members as a task's agent would be.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "slipway/channels/rendezvous_directory.hpp"
#include "slipway/rendezvous/server.hpp"
#include "slipway/rendezvous/token.hpp"

namespace slipway::channels::testing {

struct Program {
  std::string token = rendezvous::generate_token();
  rendezvous::Server server{[this] {
    rendezvous::ServerOptions options;
    options.token = token;
    options.heartbeat_interval = std::chrono::milliseconds(200);
    return options;
  }()};
  Program() { server.start(); }

  std::shared_ptr<RendezvousDirectory> directory() {
    return std::make_shared<RendezvousDirectory>(
        rendezvous::Client::connect_observer(server.endpoint(), token));
  }
  // What a task agent is: a member node.replica.
  std::unique_ptr<rendezvous::Client> agent(const std::string& node, std::uint32_t replica,
                                            std::uint32_t attempt) {
    return rendezvous::Client::connect(server.endpoint(), token,
                                       rendezvous::Identity{node, replica, attempt, {}, 0});
  }
};

}  // namespace slipway::channels::testing
