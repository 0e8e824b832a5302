// ControlPlane over the in-process rendezvous server (see header).
#include "slipway/core/contract.hpp"
#include "slipway/launch/control_plane.hpp"

#include <algorithm>
#include <atomic>

#include "slipway/rendezvous/server.hpp"
#include "slipway/rendezvous/token.hpp"

#include <utility>

namespace slipway::launch {

struct ControlPlane::Impl {
  ControlPlaneOptions options;
  std::string token = rendezvous::generate_token();
  std::string endpoint;
  std::atomic<bool> announced{false};
  std::unique_ptr<rendezvous::Server> server;

  void on_event(const rendezvous::Event& event) {
    using rendezvous::EventKind;
    switch (event.kind) {
      case EventKind::program_stopping:
        if (!announced.load() && options.on_stop_request) options.on_stop_request(event.reason);
        break;
      case EventKind::key_changed:
        if (options.on_key_changed) options.on_key_changed(event.key);
        break;
      case EventKind::member_joined:
        if (options.on_member_joined) {
          const auto& m = event.member;
          options.on_member_joined(MemberJoined{m.identity.name(), m.identity.attempt});
        }
        break;
      case EventKind::member_left:
      case EventKind::member_failed:
        if (options.on_member_ended) {
          const auto& m = event.member;
          options.on_member_ended(MemberEnded{m.identity.name(), m.identity.attempt,
                                              m.identity.host,
                                              event.kind == EventKind::member_failed,
                                              m.exit_status, m.reason});
        }
        break;
      default:
        break;
    }
  }
};

LoadTolerance tolerance_for_tasks_per_host(std::uint32_t tasks_per_host) {
  constexpr std::uint32_t kTasksPerSecond = 40;
  constexpr std::uint32_t kMaxExtraSeconds = 27;  // budget 30 s at most
  const std::uint32_t extra = std::min(kMaxExtraSeconds, tasks_per_host / kTasksPerSecond);
  LoadTolerance t;
  t.miss_budget = rendezvous::ServerOptions{}.miss_budget + extra;
  t.auth_timeout_ms = rendezvous::Limits{}.auth_timeout_ms + extra * 1000;
  return t;
}

ControlPlane::ControlPlane(ControlPlaneOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  if (!impl_->options.token.empty()) impl_->token = std::exchange(impl_->options.token, {});
  rendezvous::ServerOptions server_options;
  const LoadTolerance tolerance = tolerance_for_tasks_per_host(impl_->options.tasks_per_host);
  server_options.miss_budget = tolerance.miss_budget;
  server_options.limits.auth_timeout_ms = tolerance.auth_timeout_ms;
  server_options.bind_address = impl_->options.bind;
  server_options.advertise_host = impl_->options.advertise_host;
  server_options.token = impl_->token;
  server_options.observed_key_prefixes = impl_->options.observed_key_prefixes;
  server_options.on_event = [impl = impl_.get()](const rendezvous::Event& e) { impl->on_event(e); };
  impl_->server = std::make_unique<rendezvous::Server>(std::move(server_options));
  impl_->server->start();
  impl_->endpoint = impl_->server->endpoint();
}

ControlPlane::~ControlPlane() {
  if (impl_ && impl_->server) impl_->server->stop();
}

const std::string& ControlPlane::endpoint() const { return impl_->endpoint; }
const std::string& ControlPlane::token() const { return impl_->token; }

void ControlPlane::announce_stop(const std::string& reason) {
  impl_->announced = true;
  impl_->server->request_stop(reason);
}

void ControlPlane::stop_task(const std::string& node, std::uint32_t replica,
                             const std::string& reason) {
  impl_->server->put(core::keys::stop(node, replica), reason);
}

void ControlPlane::clear_stop(const std::string& node, std::uint32_t replica) {
  impl_->server->erase(core::keys::stop(node, replica));
}

rendezvous::Server& ControlPlane::server() { return *impl_->server; }

void ControlPlane::set_epoch(const std::string& node, int epoch) {
  impl_->server->put(core::keys::epoch(node), std::to_string(epoch));
}

void ControlPlane::declare(const std::string& node, std::uint32_t replicas) {
  impl_->server->declare(node, replicas);
}

}  // namespace slipway::launch
