// Courier addresses in the program's rendezvous: keys ucx/<node>/<replica>,
// watched through one shared subscription to key changes under "ucx/" and to
// members leaving or failing.
#include "slipway/core/contract.hpp"
#include "slipway/core/live_plan.hpp"
#include "slipway/channels/rendezvous_directory.hpp"

#include <mutex>

#include "slipway/channels/error.hpp"

namespace slipway::channels {
namespace {

using rendezvous::EventKind;

constexpr std::uint8_t kWatchEvents = static_cast<std::uint8_t>(EventKind::key_changed) |
                                      static_cast<std::uint8_t>(EventKind::member_left) |
                                      static_cast<std::uint8_t>(EventKind::member_failed);

std::optional<Bytes> address_of(const std::optional<std::string>& value) {
  if (!value || value->empty()) return std::nullopt;
  return to_bytes(std::string_view(*value));
}

// One watch: delivers its key's changes, and a withdrawal when the task
// node.replica ends, one call at a time.
class RendezvousWatch final : public AddressDirectory::Watch {
 public:
  RendezvousWatch(std::shared_ptr<rendezvous::Client> client, std::string node,
                  std::uint32_t replica, AddressDirectory::OnChange on_change)
      : client_(std::move(client)),
        state_(std::make_shared<State>()) {
    state_->key = RendezvousDirectory::address_key(node, replica);
    state_->node = std::move(node);
    state_->replica = replica;
    state_->on_change = std::move(on_change);
    std::lock_guard call(state_->mutex);  // the initial value goes first
    auto state = state_;
    subscription_ = client_->subscribe(kWatchEvents, std::string(core::keys::kUcxPrefix), [state](const rendezvous::Event& e) {
      state->deliver(e);
    });
    auto value = client_->get(state_->key);
    if (auto address = address_of(value)) state_->on_change(address);
  }

  ~RendezvousWatch() override {
    {
      std::lock_guard call(state_->mutex);
      state_->active = false;
    }
    try {
      client_->unsubscribe(subscription_);
    } catch (const std::exception&) {
      // The rendezvous is gone; nothing more will be delivered anyway.
    }
  }

 private:
  struct State {
    std::mutex mutex;
    bool active = true;
    std::string key;
    std::string node;
    std::uint32_t replica = 0;
    AddressDirectory::OnChange on_change;

    void deliver(const rendezvous::Event& e) {
      std::lock_guard call(mutex);
      if (!active) return;
      if (e.kind == EventKind::key_changed) {
        if (e.key == key) on_change(address_of(e.value));
      } else if (e.member.identity.node == node && e.member.identity.replica == replica) {
        on_change(std::nullopt);  // the task ended: its address is dead
      }
    }
  };
  std::shared_ptr<rendezvous::Client> client_;
  std::shared_ptr<State> state_;
  rendezvous::SubscriptionId subscription_ = 0;
};

ChannelError rendezvous_error(const std::exception& e, const std::string& what) {
  return ChannelError(Errc::not_resolved, what + ": " + e.what());
}

}  // namespace

RendezvousDirectory::RendezvousDirectory(std::shared_ptr<rendezvous::Client> client)
    : client_(std::move(client)) {
  if (!client_) throw ChannelError(Errc::invalid_argument, "RendezvousDirectory needs a client");
}

std::shared_ptr<RendezvousDirectory> RendezvousDirectory::from_environment() {
  std::shared_ptr<rendezvous::Client> client;
  try {
    client = rendezvous::Client::connect_observer_from_environment();
  } catch (const rendezvous::Error& e) {
    Errc code = e.status() == rendezvous::Status::invalid_request ? Errc::invalid_argument
                                                                  : Errc::not_resolved;
    throw ChannelError(code, std::string("courier: cannot reach the program's rendezvous: ") +
                                 e.what() + " (SLIPWAY_RDZV and SLIPWAY_TOKEN are set by "
                                 "`slipway run` and `slipway launch` for every task)");
  }
  return std::make_shared<RendezvousDirectory>(std::move(client));
}

std::string RendezvousDirectory::address_key(const std::string& node, std::uint32_t replica) {
  return core::keys::ucx_address(node, replica);
}

std::string RendezvousDirectory::replicas_key(const std::string& node) {
  return core::keys::ucx_replicas(node);
}

void RendezvousDirectory::publish(const std::string& node, std::uint32_t replica,
                                  ByteView address) {
  try {
    client_->put(address_key(node, replica), to_string(address), rendezvous::Scope::program);
  } catch (const rendezvous::Error& e) {
    throw rendezvous_error(e, "publishing the courier address of " + node + "." +
                                  std::to_string(replica));
  }
}

void RendezvousDirectory::withdraw(const std::string& node, std::uint32_t replica,
                                   ByteView address) {
  // Emptied only while it holds `address`: a restarted replica may have
  // replaced it already.
  try {
    client_->compare_and_swap(address_key(node, replica), to_string(address), "",
                              rendezvous::Scope::program);
  } catch (const rendezvous::Error&) {
    // The rendezvous stopping first is the normal end of a program.
  }
}

void RendezvousDirectory::declare_replicas(const std::string& node, std::uint32_t count) {
  try {
    client_->put(replicas_key(node), std::to_string(count), rendezvous::Scope::program);
  } catch (const rendezvous::Error& e) {
    throw rendezvous_error(e, "publishing the replica count of " + node);
  }
}

std::unique_ptr<AddressDirectory::Watch> RendezvousDirectory::watch(const std::string& node,
                                                                    std::uint32_t replica,
                                                                    OnChange on_change) {
  try {
    return std::make_unique<RendezvousWatch>(client_, node, replica, std::move(on_change));
  } catch (const rendezvous::Error& e) {
    throw rendezvous_error(e, "watching the courier address of " + node + "." +
                                  std::to_string(replica));
  }
}

std::optional<std::uint32_t> RendezvousDirectory::replicas(const std::string& node,
                                                           std::chrono::milliseconds timeout) {
  std::optional<std::string> value;
  try {
    value = client_->wait_for(replicas_key(node), timeout);
  } catch (const rendezvous::Error& e) {
    throw rendezvous_error(e, "reading the replica count of " + node);
  }
  if (!value) return std::nullopt;
  try {
    unsigned long count = std::stoul(*value);
    if (count > 0xffffffffUL) return std::nullopt;
    return static_cast<std::uint32_t>(count);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<std::vector<std::uint32_t>> RendezvousDirectory::live_replicas(const std::string& node) {
  std::optional<std::string> value;
  try {
    value = client_->get(core::keys::live(node));
  } catch (const rendezvous::Error& e) {
    throw rendezvous_error(e, "reading the live replicas of " + node);
  }
  if (!value) return std::nullopt;
  auto record = core::parse_live_record(*value, core::kReplicaIndexLimit);
  if (!record) return std::nullopt;
  return std::move(record->replicas);
}

std::string RendezvousDirectory::where(const std::string& node, std::uint32_t replica) const {
  return "rendezvous key " + address_key(node, replica);
}

}  // namespace slipway::channels
