// The task agent's Wiring over the rendezvous client: each task joins the
// program's rendezvous as a member (node, replica, attempt, host, pid),
// publishes its ports as task-scoped keys (withdrawn if it dies), waits for
// its peers' keys (pushed, no polling) and hears "program stopping". A lost
// connection to the rendezvous counts as a stop: a task must not outlive
// its launcher.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "slipway/exec/wiring.hpp"
#include "slipway/rendezvous/client.hpp"

namespace slipway::exec {

class RendezvousWiring : public Wiring {
 public:
  // Connects as the member for `task`; throws rendezvous::Error.
  RendezvousWiring(const std::string& endpoint, const std::string& token,
                   const core::Task& task, std::uint32_t attempt);

  void publish(const core::AddressRef& ref, const core::Endpoint& endpoint) override;
  std::optional<core::Endpoint> wait_for(const core::AddressRef& ref,
                                         std::chrono::milliseconds timeout) override;
  void on_stop(std::function<void(const std::string& reason)> callback) override;
  void leave(int exit_status) override;

  // The member's client, for hooks that speak to the rendezvous themselves
  // (the PMIx host).
  rendezvous::Client& client() { return *client_; }

 private:
  struct StopListener {
    std::mutex mutex;
    std::function<void(const std::string&)> callback;
    std::string pending;  // a stop heard before on_stop was called
    void fire(const std::string& reason);
  };
  std::shared_ptr<StopListener> stop_ = std::make_shared<StopListener>();
  std::unique_ptr<rendezvous::Client> client_;
  bool left_ = false;
};

// Reads SLIPWAY_RDZV and SLIPWAY_TOKEN; throws std::runtime_error naming
// the missing variable. Each call of the factory connects one member.
WiringFactory rendezvous_wiring_from_environment(std::uint32_t attempt);

// Parses "host:port" or "[v6addr]:port"; nothing when malformed.
std::optional<core::Endpoint> parse_endpoint(const std::string& text);

// The endpoint published for `ref` as `value`; throws std::runtime_error
// naming the key when it is malformed.
core::Endpoint parse_published_address(const core::AddressRef& ref, const std::string& value);

}  // namespace slipway::exec
