// Wiring: what the task agent needs from the program's control plane, for
// one task: publish its ports, learn its peers' addresses, hear that the
// program is stopping, and report how it ended. rendezvous_wiring.hpp gives
// the implementation over the rendezvous client.
//
// Contract: publish() makes the address visible to every task of the
// program until this task ends (then it is withdrawn); wait_for() returns
// the address once published, or nothing when `timeout` passes first;
// on_stop's callback may run on any thread; leave() is the last call.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "slipway/core/environment.hpp"

namespace slipway::exec {

class Wiring {
 public:
  virtual ~Wiring() = default;
  virtual void publish(const core::AddressRef& ref, const core::Endpoint& endpoint) = 0;
  virtual std::optional<core::Endpoint> wait_for(const core::AddressRef& ref,
                                                 std::chrono::milliseconds timeout) = 0;
  virtual void on_stop(std::function<void(const std::string& reason)> callback) = 0;
  virtual void leave(int exit_status) = 0;
};

// Makes the Wiring of one task (the agent runs one per colocated task).
using WiringFactory = std::function<std::unique_ptr<Wiring>(const core::Task& task)>;

// The rendezvous key under which a task publishes one of its ports:
// "addr/<node>/<replica>/<port>" (docs/rendezvous.md).
std::string address_key(const core::AddressRef& ref);

}  // namespace slipway::exec
