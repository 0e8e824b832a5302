// EndpointCore's life: choosing its transports (UCX shared memory, the
// courier's TCP), creating them, starting and stopping the progress thread,
// connecting links to peers, and handling the events transports queued.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "courier_address.hpp"
#include "transport_plan.hpp"
#include "endpoint_core.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/channels/ucx/status.hpp"

namespace slipway::channels::detail {
namespace {

std::string default_name() {
  const char* node = std::getenv(core::env::kNode);
  const char* replica = std::getenv(core::env::kReplica);
  if (node && *node) return std::string(node) + "." + (replica && *replica ? replica : "0");
  return "courier";
}

std::uint64_t random_id() {
  std::random_device device;
  std::uint64_t id = 0;
  while (id == 0) id = (std::uint64_t{device()} << 32) ^ device();
  return id;
}

ucs_status_t drop_am(void*, const void*, std::size_t, void*, std::size_t,
                     const ucp_am_recv_param_t*) noexcept {
  return UCS_OK;
}

ucx::ContextSettings context_settings(const EndpointOptions& options, const std::string& name,
                                      const TransportPlan& plan) {
  ucx::ContextSettings settings;
  settings.name = name;
  settings.config = options.ucx_config;
  settings.config["TLS"] = plan.ucx_tls;
  if (!options.net_devices.empty()) settings.config["NET_DEVICES"] = options.net_devices;
  if (!options.rndv_thresh.empty()) settings.config["RNDV_THRESH"] = options.rndv_thresh;
  // Shared-memory transports detect a failed peer only when asked to; without
  // it UCX refuses them for endpoints with peer error handling. UCX applies
  // this setting to posix and sysv; one in the environment wins.
  if (plan.shared_memory && !std::getenv("UCX_POSIX_ERROR_HANDLING") &&
      !std::getenv("UCX_SYSV_ERROR_HANDLING") && !settings.config.count("MM_ERROR_HANDLING")) {
    settings.config["MM_ERROR_HANDLING"] = "y";
  }
  // A larger shared-memory queue (256 x 8 KiB rather than 64) lets a 1 MiB
  // payload through without the sender waiting for room.
  if (plan.shared_memory && !std::getenv("UCX_POSIX_FIFO_SIZE") &&
      !std::getenv("UCX_SYSV_FIFO_SIZE") && !settings.config.count("MM_FIFO_SIZE")) {
    settings.config["MM_FIFO_SIZE"] = "256";
  }
  // A peer that dies silently (shared memory) is noticed by UCX's
  // keepalive; its default (20 s) is slower than typical call timeouts.
  if (!std::getenv("UCX_KEEPALIVE_INTERVAL") && !settings.config.count("KEEPALIVE_INTERVAL")) {
    settings.config["KEEPALIVE_INTERVAL"] = "2s";
  }
  // Peers' addresses are checked before UCX sees them (ucx/address.hpp),
  // which needs them to carry their interfaces' own lengths: in unified mode
  // UCX leaves those out and takes them from this side's interfaces.
  settings.config["UNIFIED_MODE"] = "n";
  return settings;
}

}  // namespace

EndpointCore::EndpointCore(EndpointOptions options)
    : options_(std::move(options)),
      name_(options_.name.empty() ? default_name() : options_.name),
      id_(random_id()),
      auth_(CourierAuth::from(options_.secret)) {
  options_.secret.assign(options_.secret.size(), '\0');
  options_.secret.clear();
  if (options_.max_message_bytes == 0 || options_.max_queued_requests == 0 ||
      options_.max_callers == 0 || options_.default_timeout.count() <= 0) {
    throw ChannelError(Errc::invalid_argument,
                       "courier endpoint " + name_ + ": max_message_bytes, max_queued_requests, "
                       "max_callers and default_timeout must be positive");
  }
  if (options_.busy_poll.count() < 0 || options_.poll_limit.count() < 0) {
    throw ChannelError(Errc::invalid_argument,
                       "courier endpoint " + name_ + ": busy_poll and poll_limit must not be "
                       "negative");
  }
  std::string tls = options_.tls;
  if (tls.empty() && std::getenv("UCX_TLS")) tls = std::getenv("UCX_TLS");
  const TransportPlan plan = plan_transports(tls);
  if (!plan.tcp && !plan.ucx) {
    throw ChannelError(Errc::invalid_argument,
                       "courier endpoint " + name_ + ": the transports '" + tls +
                           "' (UCX_TLS or the node's [ucx] tls) leave no way to reach another "
                           "process: name tcp, or a shared-memory transport (posix,cma)");
  }
  worker_ = ucx::Worker::create(ucx::Context::create(context_settings(options_, name_, plan)));
  if (worker_->max_am_header() < wire::kMaxHeaderBytes) {
    throw ChannelError(Errc::transport,
                       "courier endpoint " + name_ + ": the UCX transports allow active-message "
                       "headers of " + std::to_string(worker_->max_am_header()) + " bytes, " +
                       "courier needs " + std::to_string(wire::kMaxHeaderBytes));
  }
  host_key_ = local_host_key();
  ucx_published_ = plan.ucx;
  ucx_shared_memory_ = plan.shared_memory;
  CourierAddress published;
  published.host_key = host_key_;
  if (ucx_published_) published.ucx = worker_->address();
  if (plan.tcp) {
    TcpTransport::Settings tcp;
    std::string devices = options_.net_devices;
    if (devices.empty() && std::getenv("UCX_NET_DEVICES")) devices = std::getenv("UCX_NET_DEVICES");
    tcp.address = choose_tcp_address(devices);
    // Frames over max_message_bytes are refused by receive() (the caller
    // learns why) and read past unkept; this only bounds the arithmetic.
    tcp.max_frame_bytes = std::size_t{1} << 40;
    tcp.max_inbound = options_.max_callers + kMaxPendingCallers;
    tcp_ = std::make_unique<TcpTransport>(
        std::move(tcp), [this](unsigned am_id, ByteView header, std::byte* data,
                               std::size_t length, const PayloadReader* read_payload,
                               bool& trusted) {
          return receive_tcp(am_id, header, data, length, read_payload, trusted);
        });
    published.tcp_address = tcp_->address();
    published.tcp_port = tcp_->port();
  }
  address_ = encode_courier_address(published);
  loop_ = std::make_unique<ProgressLoop>(worker_);
  worker_->set_am_handler(wire::kRequestAm, &EndpointCore::on_request_am, this);
  worker_->set_am_handler(wire::kReplyAm, &EndpointCore::on_reply_am, this);
  if (options_.handler_threads > 0) pool_ = std::make_unique<HandlerPool>(options_.handler_threads);
}

EndpointCore::~EndpointCore() {
  shutdown();
  // The loop has stopped. Endpoints go before the worker they keep alive,
  // and the worker goes while this object is whole: operations it completes
  // while it is destroyed may still touch it.
  peers_.clear();
  callers_.clear();
  pending_.clear();
  proven_.clear();
  counters_.callers = 0;
  lingering_.clear();
  // Messages still arriving while the worker is destroyed are dropped here
  // (with no handler at all, UCX prints a warning on the task's stdout).
  worker_->set_am_handler(wire::kRequestAm, &drop_am, nullptr);
  worker_->set_am_handler(wire::kReplyAm, &drop_am, nullptr);
  pool_.reset();
  loop_.reset();
  tcp_.reset();
  worker_.reset();
}

void EndpointCore::start() {
  ProgressLoop::Settings settings;
  settings.thread_name = "courier-" + name_;
  settings.after_progress = [this] { after_progress(); };
  settings.pending = [this] { return has_events(); };
  settings.transferring = [this] { return *sends_in_flight_ > 0; };
  if (tcp_) {
    settings.io_fd = tcp_->fd();
    settings.poll_io = [this] { return tcp_->progress(); };
  }
  settings.busy_poll = options_.busy_poll;
  settings.poll_limit = options_.poll_limit;
  loop_->start(std::move(settings));
}

void EndpointCore::shutdown() {
  if (shut_down_.exchange(true)) return;
  if (pool_) pool_->stop();
  loop_->stop([this] { stop_everything(); }, std::chrono::milliseconds(2000));
}

std::chrono::milliseconds EndpointCore::timeout_or_default(Timeout timeout) const {
  if (timeout && timeout->count() < 0) {
    throw ChannelError(Errc::invalid_argument, "a call timeout must not be negative");
  }
  return timeout ? *timeout : options_.default_timeout;
}

EndpointStats EndpointCore::stats() const noexcept {
  EndpointStats out;
  out.calls_started = counters_.calls_started.load();
  out.requests_received = counters_.requests_received.load();
  out.eager_receives = counters_.eager_receives.load();
  out.rendezvous_receives = counters_.rendezvous_receives.load();
  out.refused = counters_.refused.load();
  out.callers = counters_.callers.load();
  out.calls_without_hello = counters_.calls_without_hello.load();
  out.refused_addresses = counters_.refused_addresses.load();
  out.refused_proofs = counters_.refused_proofs.load();
  return out;
}

template <typename Fn>
void EndpointCore::run_on_loop(Fn&& fn) {
  if (loop_->on_owner_thread()) {
    fn();
    return;
  }
  std::promise<void> done;
  auto finished = done.get_future();
  bool posted = loop_->post([&fn, &done] {
    try {
      fn();
      done.set_value();
    } catch (...) {
      done.set_exception(std::current_exception());
    }
  });
  if (!posted) throw ChannelError(Errc::closed, "courier endpoint " + name_ + " is closed");
  finished.get();
}

void EndpointCore::add_method(const std::string& method, AsyncHandler handler, MethodOrder order) {
  if (method.empty() || method.size() > wire::kMaxMethodBytes) {
    throw ChannelError(Errc::invalid_argument,
                       "method name '" + method + "' must be 1 to " +
                           std::to_string(wire::kMaxMethodBytes) + " bytes long");
  }
  if (!handler) throw ChannelError(Errc::invalid_argument, "method '" + method + "' has no handler");
  auto shared = std::make_shared<AsyncHandler>(std::move(handler));
  run_on_loop([&] {
    methods_[method] = shared;
    if (order == MethodOrder::bulk) {
      bulk_methods_.insert(method);
    } else {
      bulk_methods_.erase(method);
    }
  });
}

void EndpointCore::push(Event event) { events_.push_back(std::move(event)); }

// Handles what the last poll took in, in arrival order, except requests to
// bulk methods (MethodOrder::bulk): those go last, one at a time, and what a
// bulk handler let in (a send completing inline) goes before the next one.
void EndpointCore::after_progress() {
  for (;;) {
    while (!events_.empty()) {
      Event event = std::move(events_.front());
      events_.pop_front();
      if (event.type == Event::Type::request && !bulk_methods_.empty() &&
          bulk_methods_.count(event.header.method) != 0) {
        bulk_requests_.push_back(std::move(event));
        continue;
      }
      handle_contained(event);
    }
    if (bulk_requests_.empty()) break;
    Event event = std::move(bulk_requests_.front());
    bulk_requests_.pop_front();
    handle_contained(event);
  }
  if (!lingering_.empty()) close_idle_lingering();
}

void EndpointCore::handle_contained(Event& event) {
  try {
    handle(event);
  } catch (const std::exception&) {
    // A failure handling one event (e.g. no memory) must not stop the loop;
    // the call concerned times out.
  }
}

void EndpointCore::handle(Event& event) {
  switch (event.type) {
    case Event::Type::request:
      on_request(event.header, std::move(event.data));
      break;
    case Event::Type::reply:
      on_reply(event.header, std::move(event.data));
      break;
    case Event::Type::rejected:
      on_rejected(event.header, event.reject_status, std::move(event.message));
      break;
    case Event::Type::reply_refused:
      on_reply_refused(event.header.call_id, event.reject_status, std::move(event.message));
      break;
    case Event::Type::send_done:
      on_send_done(event.id, event.status);
      break;

    case Event::Type::peer_failed:
      on_peer_failed(event.id, event.generation, event.status);
      break;
    case Event::Type::caller_failed:
      on_caller_failed(event.id, event.generation);
      break;
  }
}

void EndpointCore::stop_everything() {
  stopping_ = true;
  after_progress();
  std::vector<std::uint64_t> ids;
  for (const auto& [id, call] : calls_) ids.push_back(id);
  for (auto id : ids) {
    auto it = calls_.find(id);
    if (it == calls_.end()) continue;
    fail(id, Errc::closed,
         "courier endpoint " + name_ + " closed while call '" + it->second.method + "' to " +
             label_of(it->second.peer) + " was pending");
  }
  for (auto& [id, peer] : peers_) {
    linger(std::move(peer.link), wire::kRequestAm,
           {wire::Header{wire::Kind::goodbye, 0, id_, peer.generation, {}}});
  }
  // Callers learn that this callee leaves (their calls in flight fail now,
  // not at their timeout).
  for (auto& [id, caller] : callers_) {
    std::vector<wire::Header> notices;
    for (auto connection : caller.connections) {
      notices.push_back(wire::Header{wire::Kind::leaving, 0, id_, connection, {}});
    }
    linger(std::move(caller.link), wire::kReplyAm, notices);
  }
  for (auto* waiting : {&pending_, &proven_}) {
    for (auto& [key, pending] : *waiting) linger(std::move(pending.link));
    waiting->clear();
  }
  // Let the goodbyes, notices and replies leave (at most kLingerLimit);
  // endpoints close as they become idle.
  auto deadline = ProgressLoop::Clock::now() + kLingerLimit;
  while (!lingering_.empty() && ProgressLoop::Clock::now() < deadline) {
    loop_->progress_transports();
    after_progress();
  }
  lingering_.clear();
  methods_.clear();
}

void EndpointCore::linger(std::unique_ptr<Link> link, unsigned am_id,
                          const std::vector<wire::Header>& last) {
  if (!link) return;
  if (link->failed()) return;  // closed (by force) right here
  for (const auto& header : last) send_message(*link, am_id, header, {}, 0, false);
  if (link->in_flight() == 0) return;  // nothing to wait for: closed here
  std::uint64_t id = ++next_linger_;
  Lingering& lingering = lingering_[id];
  lingering.link = std::move(link);
  lingering.timer = loop_->schedule(ProgressLoop::Clock::now() + kLingerLimit,
                                    [this, id] { lingering_.erase(id); });
}

void EndpointCore::close_idle_lingering() {
  for (auto it = lingering_.begin(); it != lingering_.end();) {
    if (it->second.link->in_flight() == 0 || it->second.link->failed()) {
      loop_->cancel(it->second.timer);
      it = lingering_.erase(it);
    } else {
      ++it;
    }
  }
}

std::unique_ptr<Link> EndpointCore::connect_link(ByteView address, Link::ErrorCallback on_error) {
  auto parsed = parse_courier_address(address);
  if (!parsed.address) {
    throw ChannelError(Errc::protocol, "not a valid courier address (" +
                                           std::to_string(address.size()) + " bytes): " +
                                           parsed.error);
  }
  const CourierAddress& peer = *parsed.address;
  const bool same_host = peer.host_key == host_key_;
  const bool by_ucx = !peer.ucx.empty() && ucx_published_;
  const bool by_tcp = !peer.tcp_address.empty() && tcp_;
  // UCX's shared memory within a host, else TCP, else UCX (RDMA alone).
  if (by_ucx && (!by_tcp || (same_host && ucx_shared_memory_))) {
    return std::make_unique<UcxLink>(ucx::Ep::connect(worker_, peer.ucx, std::move(on_error)),
                                     same_host && ucx_shared_memory_);
  }
  if (by_tcp) return tcp_->connect(peer.tcp_address, peer.tcp_port, std::move(on_error));
  throw ChannelError(Errc::transport,
                     "no transport in common with the peer: it offers " +
                         std::string(peer.tcp_address.empty() ? "" : "TCP ") +
                         (peer.ucx.empty() ? "" : "UCX ") + "and this endpoint " +
                         (tcp_ ? "TCP " : "") + (ucx_published_ ? "UCX" : "") +
                         (same_host ? "" : " (on another host)") +
                         "; give both sides' UCX_TLS a transport in common (tcp)");
}

PeerLease::~PeerLease() {
  watch.reset();  // no address change arrives after this
  core->release_peer(peer);
}

}  // namespace slipway::channels::detail
