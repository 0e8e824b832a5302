// Where courier endpoints publish their UCX worker addresses and where
// callers find them by node name: an interface, with LocalDirectory (one
// process, for tests and single-process programs) here and the rendezvous
// implementation in rendezvous_directory.hpp.
//
// Contract: publish() makes `address` the one published for node.replica
// (replacing an earlier one) until withdraw() or until the publisher's task
// ends. withdraw() removes it only while it is still `address` (a restarted
// replica's newer address is never removed by the old one). watch() calls `on_change` with the current address if there is one,
// then with every change (std::nullopt: withdrawn), until the Watch is
// destroyed; calls for one watch never overlap and may come from any thread;
// destroying a Watch never blocks for long (it may run on a progress thread)
// and no call starts after it returned. replicas() answers how many replicas
// a node has, waiting up to `timeout` for the answer to be known.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "slipway/channels/bytes.hpp"

namespace slipway::channels {

class AddressDirectory {
 public:
  class Watch {
   public:
    virtual ~Watch() = default;
  };
  using OnChange = std::function<void(const std::optional<Bytes>& address)>;

  virtual ~AddressDirectory() = default;
  virtual void publish(const std::string& node, std::uint32_t replica, ByteView address) = 0;
  virtual void withdraw(const std::string& node, std::uint32_t replica, ByteView address) = 0;
  virtual std::unique_ptr<Watch> watch(const std::string& node, std::uint32_t replica,
                                       OnChange on_change) = 0;
  virtual std::optional<std::uint32_t> replicas(const std::string& node,
                                                std::chrono::milliseconds timeout) = 0;
  // Records how many replicas node has (what replicas() answers).
  virtual void declare_replicas(const std::string& node, std::uint32_t count) = 0;
  // The replicas an elastic node runs now, ascending (docs/elastic.md);
  // nothing when the directory knows no live set for it (a fixed node:
  // replicas() says how many).
  virtual std::optional<std::vector<std::uint32_t>> live_replicas(const std::string& /*node*/) {
    return std::nullopt;
  }
  // Where node.replica's address lives, for error messages (e.g. "the
  // rendezvous key ucx/learner/0").
  virtual std::string where(const std::string& node, std::uint32_t replica) const = 0;
};

// An in-process directory. replicas() is what declare_replicas() declared,
// else one more than the highest replica ever published.
class LocalDirectory final : public AddressDirectory {
 public:
  LocalDirectory();
  ~LocalDirectory() override;
  void publish(const std::string& node, std::uint32_t replica, ByteView address) override;
  void withdraw(const std::string& node, std::uint32_t replica, ByteView address) override;
  std::unique_ptr<Watch> watch(const std::string& node, std::uint32_t replica,
                               OnChange on_change) override;
  std::optional<std::uint32_t> replicas(const std::string& node,
                                        std::chrono::milliseconds timeout) override;
  void declare_replicas(const std::string& node, std::uint32_t count) override;
  std::string where(const std::string& node, std::uint32_t replica) const override;

  struct State;  // opaque; shared with the watches it hands out

 private:
  std::shared_ptr<State> state_;
};

}  // namespace slipway::channels
