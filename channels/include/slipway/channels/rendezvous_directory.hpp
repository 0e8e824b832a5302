// The AddressDirectory of a slipway program: its rendezvous service. A
// courier endpoint publishes its UCX worker address as the key
// "ucx/<node>/<replica>" and, from a task, its node's replica count as
// "ucx-replicas/<node>" (docs/channels.md).
//
// Contract: keys are program-scoped (a user process connects as an observer;
// the task's own membership belongs to its agent). An address counts as
// withdrawn when its key is erased or emptied, and also when the task
// node.replica leaves or fails in the rendezvous (its agent reports that), so
// callers stop using a dead task's address before it is replaced. withdraw()
// empties the key (compare-and-swap) only while it still holds the address
// given. Watches share one
// rendezvous subscription; their callbacks run on the client's event thread.
#pragma once

#include <memory>
#include <string>

#include "slipway/channels/directory.hpp"
#include "slipway/rendezvous/client.hpp"

namespace slipway::channels {

class RendezvousDirectory final : public AddressDirectory {
 public:
  explicit RendezvousDirectory(std::shared_ptr<rendezvous::Client> client);
  // Connects an observer to SLIPWAY_RDZV with SLIPWAY_TOKEN; throws
  // ChannelError (invalid_argument) naming a missing variable, or
  // (not_resolved) when the rendezvous cannot be reached.
  static std::shared_ptr<RendezvousDirectory> from_environment();

  void publish(const std::string& node, std::uint32_t replica, ByteView address) override;
  void withdraw(const std::string& node, std::uint32_t replica, ByteView address) override;
  std::unique_ptr<Watch> watch(const std::string& node, std::uint32_t replica,
                               OnChange on_change) override;
  std::optional<std::uint32_t> replicas(const std::string& node,
                                        std::chrono::milliseconds timeout) override;
  void declare_replicas(const std::string& node, std::uint32_t count) override;
  // From the key live/<node> the launcher keeps for elastic nodes.
  std::optional<std::vector<std::uint32_t>> live_replicas(const std::string& node) override;
  std::string where(const std::string& node, std::uint32_t replica) const override;

  static std::string address_key(const std::string& node, std::uint32_t replica);
  static std::string replicas_key(const std::string& node);

 private:
  std::shared_ptr<rendezvous::Client> client_;
};

}  // namespace slipway::channels
