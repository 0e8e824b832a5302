// The public face of courier RPC: Endpoint and Handle over EndpointCore.
#include "slipway/core/contract.hpp"
#include "slipway/channels/endpoint.hpp"

#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "endpoint_core.hpp"

namespace slipway::channels {
namespace {

std::string hex_prefix(ByteView bytes) {
  std::string out;
  char buf[3];
  for (std::size_t i = 0; i < bytes.size() && i < 6; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", std::to_integer<unsigned>(bytes[i]));
    out += buf;
  }
  return out;
}

std::uint32_t number_from_environment(const char* variable) {
  const char* text = std::getenv(variable);
  if (!text || !*text) {
    throw ChannelError(Errc::invalid_argument,
                       std::string(variable) + " is not set: outside a slipway task, call "
                       "publish(node, replica)");
  }
  char* end = nullptr;
  unsigned long value = std::strtoul(text, &end, 10);
  if (*end != '\0' || value > 0xffffffffUL) {
    throw ChannelError(Errc::invalid_argument,
                       std::string(variable) + "='" + text + "' is not a number");
  }
  return static_cast<std::uint32_t>(value);
}

}  // namespace

Handle::Handle(std::shared_ptr<detail::PeerLease> lease) : lease_(std::move(lease)) {}
Handle::~Handle() = default;

const std::string& Handle::name() const noexcept { return lease_->name; }

Bytes Handle::call(const std::string& method, Bytes request, Timeout timeout) const {
  if (lease_->core->on_progress_thread()) {
    throw ChannelError(Errc::would_deadlock,
                       "a blocking call to " + lease_->name + " from the thread progressing "
                       "courier endpoint " + lease_->core->name() + " (one of its handlers) "
                       "would wait forever; use "
                       "call_async(), or set EndpointOptions::handler_threads");
  }
  return lease_->core->call(lease_->peer, method, std::move(request), timeout, lease_->window);
}

namespace {

// Starts a call whose outcome fulfils a promise of T (Bytes, or void for
// one-way sends).
template <typename T>
std::future<T> start_call(const detail::PeerLease& lease, const std::string& method,
                          Bytes request, Timeout timeout) {
  auto promise = std::make_shared<std::promise<T>>();
  auto future = promise->get_future();
  constexpr bool oneway = std::is_void_v<T>;
  lease.core->start_call(lease.peer, method, std::move(request), timeout, oneway,
                         [promise](detail::CallResult&& result) {
                           if (result.error) {
                             promise->set_exception(result.error);
                           } else if constexpr (oneway) {
                             promise->set_value();
                           } else {
                             promise->set_value(std::move(result.value));
                           }
                         });
  return future;
}

}  // namespace

std::future<Bytes> Handle::call_async(const std::string& method, Bytes request,
                                      Timeout timeout) const {
  return start_call<Bytes>(*lease_, method, std::move(request), timeout);
}

std::future<void> Handle::send(const std::string& method, Bytes request, Timeout timeout) const {
  return start_call<void>(*lease_, method, std::move(request), timeout);
}

Endpoint::Endpoint(EndpointOptions options, std::shared_ptr<AddressDirectory> directory)
    : core_(std::make_shared<detail::EndpointCore>(std::move(options))),
      directory_(std::move(directory)) {
  core_->start();
}

Endpoint::~Endpoint() { close(); }

void Endpoint::close() {
  if (directory_) {
    for (const auto& [node, replica] : published_) {
      try {
        directory_->withdraw(node, replica, core_->address());
      } catch (const std::exception&) {
        // The directory may be gone already (e.g. the rendezvous stopped).
      }
    }
  }
  published_.clear();
  core_->shutdown();
}

void Endpoint::register_method(const std::string& method, Handler handler) {
  if (!handler) throw ChannelError(Errc::invalid_argument, "method '" + method + "' has no handler");
  core_->add_method(method, [handler = std::move(handler)](ByteView request, Responder responder) {
    Bytes result;
    try {
      result = handler(request);
    } catch (const std::exception& e) {
      responder.fail(e.what());
      return;
    } catch (...) {
      responder.fail("unknown exception");
      return;
    }
    responder.reply(std::move(result));
  });
}

void Endpoint::register_async_method(const std::string& method, AsyncHandler handler, MethodOrder order) {
  core_->add_method(method, std::move(handler), order);
}

const Bytes& Endpoint::address() const noexcept { return core_->address(); }
const std::string& Endpoint::name() const noexcept { return core_->name(); }
const EndpointOptions& Endpoint::options() const noexcept { return core_->options(); }
EndpointStats Endpoint::stats() const noexcept { return core_->stats(); }

AddressDirectory& Endpoint::directory(const char* what) const {
  if (!directory_) {
    throw ChannelError(Errc::invalid_argument,
                       std::string(what) + " needs an address directory: create the endpoint "
                       "with one (e.g. rendezvous_directory_from_environment())");
  }
  return *directory_;
}

void Endpoint::publish(const std::string& node, std::uint32_t replica) {
  directory("publish()").publish(node, replica, core_->address());
  published_.emplace_back(node, replica);
}

void Endpoint::publish() {
  const char* node = std::getenv(core::env::kNode);
  if (!node || !*node) {
    throw ChannelError(Errc::invalid_argument,
                       "SLIPWAY_NODE is not set: outside a slipway task, call "
                       "publish(node, replica)");
  }
  std::uint32_t replica = number_from_environment(core::env::kReplica);
  if (std::getenv(core::env::kReplicas)) {
    directory("publish()").declare_replicas(node, number_from_environment(core::env::kReplicas));
  }
  publish(node, replica);
}

Handle Endpoint::resolve(const std::string& node, std::uint32_t replica) {
  AddressDirectory& dir = directory("resolve()");
  auto lease = std::make_shared<detail::PeerLease>();
  lease->core = core_;
  lease->name = node + "." + std::to_string(replica);
  lease->peer = core_->open_peer(lease->name, dir.where(node, replica), std::nullopt);
  std::weak_ptr<detail::EndpointCore> weak = core_;
  std::uint64_t peer = lease->peer;
  lease->watch = dir.watch(node, replica, [weak, peer](const std::optional<Bytes>& address) {
    if (auto core = weak.lock()) core->set_peer_address(peer, address);
  });
  return Handle(std::move(lease));
}

std::uint32_t Endpoint::replica_count(const std::string& node, std::chrono::milliseconds timeout) {
  auto count = directory("resolve_all()").replicas(node, timeout);
  if (!count) {
    throw ChannelError(Errc::not_resolved,
                       "the number of replicas of node '" + node + "' is not known after " +
                           std::to_string(timeout.count()) + " ms; check the node's name and "
                           "that its tasks have started");
  }
  return *count;
}

std::vector<std::uint32_t> Endpoint::live_replicas(const std::string& node,
                                                   std::chrono::milliseconds timeout) {
  if (auto live = directory("resolve_all()").live_replicas(node)) return *live;
  std::vector<std::uint32_t> all(replica_count(node, timeout));
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

std::vector<Handle> Endpoint::resolve_all(const std::string& node,
                                          std::chrono::milliseconds timeout) {
  std::vector<Handle> handles;
  for (std::uint32_t replica : live_replicas(node, timeout)) handles.push_back(resolve(node, replica));
  return handles;
}

Handle Endpoint::connect(ByteView address, const std::string& label) {
  if (address.empty()) {
    throw ChannelError(Errc::invalid_argument, "connect() needs a non-empty worker address");
  }
  auto lease = std::make_shared<detail::PeerLease>();
  lease->core = core_;
  lease->name = label.empty() ? "peer@" + hex_prefix(address) : label;
  lease->peer = core_->open_peer(lease->name, "an address given to connect()", to_bytes(address));
  return Handle(std::move(lease));
}

}  // namespace slipway::channels
