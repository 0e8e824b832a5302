// RendezvousWiring: publish, resolve and stop through the rendezvous client.
#include "slipway/core/contract.hpp"
#include "slipway/exec/rendezvous_wiring.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

#include "slipway/rendezvous/token.hpp"

namespace slipway::exec {

void RendezvousWiring::StopListener::fire(const std::string& reason) {
  std::function<void(const std::string&)> call;
  {
    std::lock_guard lock(mutex);
    if (!callback) {
      if (pending.empty()) pending = reason;
      return;
    }
    call = callback;
  }
  call(reason);
}

RendezvousWiring::RendezvousWiring(const std::string& endpoint, const std::string& token,
                                   const core::Task& task, std::uint32_t attempt) {
  rendezvous::ClientOptions options;
  options.on_disconnect = [stop = stop_](const rendezvous::Error& error) {
    stop->fire(std::string("lost the rendezvous: ") + error.what());
  };
  rendezvous::Identity identity;
  identity.node = task.node;
  identity.replica = task.replica;
  identity.attempt = attempt;
  client_ = rendezvous::Client::connect(endpoint, token, identity, options);
  // One subscription (one round trip) hears both a program stop and the key
  // stop/NODE/REPLICA through which the launcher stops this one task.
  const std::string stop_key = core::keys::stop(task.node, task.replica);
  const auto kinds = static_cast<std::uint8_t>(
      static_cast<std::uint8_t>(rendezvous::EventKind::program_stopping) |
      static_cast<std::uint8_t>(rendezvous::EventKind::key_changed));
  client_->subscribe(kinds, stop_key, [stop = stop_, stop_key](const rendezvous::Event& event) {
    if (event.kind == rendezvous::EventKind::program_stopping) {
      stop->fire(event.reason);
    } else if (event.key == stop_key && event.value) {
      stop->fire(*event.value);
    }
  });
  if (auto already = client_->get(stop_key)) stop_->fire(*already);
}

void RendezvousWiring::publish(const core::AddressRef& ref, const core::Endpoint& endpoint) {
  client_->put(address_key(ref), endpoint.to_string(), rendezvous::Scope::task);
}

std::optional<core::Endpoint> RendezvousWiring::wait_for(const core::AddressRef& ref,
                                                         std::chrono::milliseconds timeout) {
  auto value = client_->wait_for(address_key(ref), timeout);
  if (!value) return std::nullopt;
  return parse_published_address(ref, *value);
}

core::Endpoint parse_published_address(const core::AddressRef& ref, const std::string& value) {
  auto endpoint = parse_endpoint(value);
  if (!endpoint) {
    throw std::runtime_error("malformed address '" + value + "' published under " +
                             address_key(ref));
  }
  return *endpoint;
}

void RendezvousWiring::on_stop(std::function<void(const std::string& reason)> callback) {
  std::string pending;
  {
    std::lock_guard lock(stop_->mutex);
    stop_->callback = callback;
    pending.swap(stop_->pending);
  }
  if (!pending.empty()) callback(pending);
}

void RendezvousWiring::leave(int exit_status) {
  if (left_) return;
  left_ = true;
  try {
    client_->leave(exit_status);
  } catch (const std::exception&) {
    // The rendezvous is gone (the launcher ended): nobody is left to tell.
  }
}

std::optional<core::Endpoint> parse_endpoint(const std::string& text) {
  std::string host;
  std::string port_text;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find("]:");
    if (close == std::string::npos) return std::nullopt;
    host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0) return std::nullopt;
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 || port > 65535) {
    return std::nullopt;
  }
  return core::Endpoint{host, static_cast<std::uint16_t>(port)};
}

WiringFactory rendezvous_wiring_from_environment(std::uint32_t attempt) {
  const char* endpoint = std::getenv(core::env::kRendezvous);
  const char* token = std::getenv(core::env::kToken);
  if (!endpoint || !*endpoint) {
    throw std::runtime_error(std::string(core::env::kRendezvous) +
                             " is not set: slipway-exec is started by `slipway run` or "
                             "`slipway launch`, which set it");
  }
  if (!token || !*token) {
    throw std::runtime_error(std::string(core::env::kToken) + " is not set");
  }
  return [endpoint = std::string(endpoint), token = std::string(token),
          attempt](const core::Task& task) -> std::unique_ptr<Wiring> {
    return std::make_unique<RendezvousWiring>(endpoint, token, task, attempt);
  };
}

}  // namespace slipway::exec
