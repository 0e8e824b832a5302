// The rendezvous server: binds, runs the engine and its Asio transport on a
// thread of its own, and marshals the launcher's calls onto that thread.
#include "slipway/rendezvous/server.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include "log.hpp"
#include <unistd.h>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>

#include "asio_transport.hpp"
#include "slipway/base/local_address.hpp"
#include "slipway/rendezvous/endpoint.hpp"
#include "slipway/rendezvous/error.hpp"

namespace slipway::rendezvous {
namespace {

asio::ip::tcp::endpoint resolve_bind(const std::string& address, std::uint16_t port) {
  asio::error_code ec;
  const auto literal = asio::ip::make_address(address, ec);
  if (!ec) return {literal, port};
  asio::io_context io;
  asio::ip::tcp::resolver resolver(io);
  const auto results = resolver.resolve(address, std::to_string(port),
                                        asio::ip::resolver_base::passive, ec);
  if (ec || results.empty()) {
    throw Error(Status::invalid_request, "rendezvous: cannot resolve the bind address '" + address +
                                             "': " + (ec ? ec.message() : "no address") +
                                             " (use an IP address, \"0.0.0.0\" or \"::\")");
  }
  return results.begin()->endpoint();
}

// Connections before authentication may take at most a quarter of this
// process's descriptors, and one peer address at most half of those: the
// rest stay for members, whatever unauthenticated peers do.
Limits within_descriptor_limit(Limits limits) {
  rlimit fds{};
  if (::getrlimit(RLIMIT_NOFILE, &fds) == 0 && fds.rlim_cur != RLIM_INFINITY) {
    const auto quarter = static_cast<std::uint32_t>(std::min<rlim_t>(fds.rlim_cur / 4, 0xffffffffu));
    limits.max_unauthenticated = std::min(limits.max_unauthenticated, std::max(quarter, 4u));
  }
  limits.max_unauthenticated_per_address =
      std::min(limits.max_unauthenticated_per_address, std::max(limits.max_unauthenticated / 2, 1u));
  return limits;
}

}  // namespace

struct Server::Impl {
  enum class Phase { idle, running, stopping, stopped };

  explicit Impl(ServerOptions opts) : options(std::move(opts)), io(1) {
    if (options.token.empty()) {
      throw Error(Status::invalid_request, "rendezvous: the server needs the program's secret (token)");
    }
    options.limits = within_descriptor_limit(options.limits);
    transport = std::make_unique<AsioTransport>(io, options.limits);
    EngineOptions eo;
    eo.token = options.token;
    eo.heartbeat_interval = options.heartbeat_interval;
    eo.miss_budget = options.miss_budget;
    eo.limits = options.limits;
    eo.on_event = options.on_event;
    eo.observed_key_prefixes = options.observed_key_prefixes;
    engine = std::make_unique<Engine>(std::move(eo), *transport);
    transport->attach(*engine);
  }

  // Runs f(engine) on the server thread (or inline where that is safe) and
  // returns its result.
  template <class F>
  auto call(F&& f) -> decltype(f(std::declval<Engine&>())) {
    using R = decltype(f(std::declval<Engine&>()));
    if (std::this_thread::get_id() == loop_thread.load()) return f(*engine);
    std::unique_lock lock(mutex);
    if (phase == Phase::idle || phase == Phase::stopped) return f(*engine);
    if (phase == Phase::stopping) throw Error(Status::stopping, "rendezvous: the server is stopping");
    std::packaged_task<R()> task([this, &f] {
      if constexpr (std::is_void_v<R>) {
        f(*engine);
        transport->after_engine_call();
      } else {
        R r = f(*engine);
        transport->after_engine_call();
        return r;
      }
    });
    auto result = task.get_future();
    asio::post(io, [&task] { task(); });
    lock.unlock();
    return result.get();
  }

  // Queues f(engine) on the server thread and returns at once (runs it
  // inline where call() would); dropped once the server is stopping.
  template <class F>
  void post(F f) {
    if (std::this_thread::get_id() == loop_thread.load()) return f(*engine);
    std::unique_lock lock(mutex);
    if (phase == Phase::idle || phase == Phase::stopped) return f(*engine);
    if (phase == Phase::stopping) return;
    asio::post(io, [this, f = std::move(f)]() mutable {
      f(*engine);
      transport->after_engine_call();
    });
  }

  ServerOptions options;
  asio::io_context io;
  std::unique_ptr<AsioTransport> transport;
  std::unique_ptr<Engine> engine;
  std::unique_ptr<asio::ip::tcp::acceptor> acceptor;
  std::thread thread;
  std::atomic<std::thread::id> loop_thread{};
  std::mutex mutex;
  Phase phase = Phase::idle;
  std::string endpoint;
  std::uint16_t port = 0;
};

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

Server::~Server() {
  try {
    stop();
  } catch (const std::exception& e) {
    rdzv_log()->error("rendezvous: stopping the server failed: {}", e.what());
  }
}

void Server::start() {
  Impl& s = *impl_;
  std::lock_guard lock(s.mutex);
  if (s.phase != Impl::Phase::idle) return;
  const auto bind = resolve_bind(s.options.bind_address, s.options.port);
  s.acceptor = std::make_unique<asio::ip::tcp::acceptor>(s.io);
  asio::error_code ec;
  s.acceptor->open(bind.protocol(), ec);
  if (!ec) s.acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec && bind.address().is_v6() && bind.address().is_unspecified()) {
    s.acceptor->set_option(asio::ip::v6_only(false), ec);  // "::" serves IPv4 too
  }
  if (!ec) s.acceptor->bind(bind, ec);
  if (!ec) s.acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    throw Error(Status::invalid_request,
                "rendezvous: cannot listen on " + format_endpoint(bind.address().to_string(), bind.port()) +
                    ": " + ec.message() + " (choose another address or port, or 0 for any port)");
  }
  s.port = s.acceptor->local_endpoint().port();
  std::string host = s.options.advertise_host;
  if (host.empty()) host = bind.address().is_unspecified() ? base::this_host_name() : s.options.bind_address;
  s.endpoint = format_endpoint(host, s.port);
  s.transport->listen(*s.acceptor);
  std::promise<void> ready;
  auto started = ready.get_future();
  s.thread = std::thread([&s, &ready] {
    pthread_setname_np(pthread_self(), "slipway-rdzv");
    s.loop_thread.store(std::this_thread::get_id());
    ready.set_value();
    for (;;) {
      try {
        s.io.run();
        return;
      } catch (const std::exception& e) {
        rdzv_log()->error("rendezvous: server loop error: {}; continuing", e.what());
      }
    }
  });
  started.wait();
  s.phase = Impl::Phase::running;
  rdzv_log()->debug("rendezvous: listening on {}", s.endpoint);
}

void Server::stop() {
  Impl& s = *impl_;
  if (std::this_thread::get_id() == s.loop_thread.load()) {
    throw Error(Status::invalid_request, "rendezvous: Server::stop() called from the server thread (on_event)");
  }
  {
    std::lock_guard lock(s.mutex);
    if (s.phase != Impl::Phase::running) return;
    s.phase = Impl::Phase::stopping;
    asio::post(s.io, [&s] {
      s.transport->shutdown();
      s.io.stop();
    });
  }
  if (s.thread.joinable()) s.thread.join();
  std::lock_guard lock(s.mutex);
  s.loop_thread.store({});
  s.phase = Impl::Phase::stopped;
}

std::string Server::endpoint() const { return impl_->endpoint; }
std::uint16_t Server::port() const { return impl_->port; }

void Server::put(const std::string& key, const std::string& value) {
  impl_->call([&](Engine& e) { e.put(key, value); });
}

std::optional<std::string> Server::get(const std::string& key) {
  return impl_->call([&](Engine& e) { return e.get(key); });
}

bool Server::erase(const std::string& key) {
  return impl_->call([&](Engine& e) { return e.erase(key); });
}

void Server::declare(const std::string& node, std::uint32_t replicas) {
  impl_->call([&](Engine& e) { e.declare(node, replicas); });
}

void Server::request_stop(const std::string& reason) {
  impl_->call([&](Engine& e) { e.request_stop(reason); });
}

bool Server::stopping() {
  return impl_->call([](Engine& e) { return e.stopping(); });
}

std::vector<MemberRecord> Server::members() {
  return impl_->call([](Engine& e) { return e.members(); });
}

std::vector<std::optional<std::string>> Server::get_many(const std::vector<std::string>& keys) {
  return impl_->call([&](Engine& e) {
    std::vector<std::optional<std::string>> values;
    values.reserve(keys.size());
    for (const auto& key : keys) values.push_back(e.get(key));
    return values;
  });
}

std::vector<Server::LocalJoin> Server::join_local(const std::vector<LocalJoinRequest>& requests) {
  return impl_->call([&](Engine& e) {
    std::vector<LocalJoin> results(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
      results[i].status = e.join_local(requests[i].id, requests[i].task_keys, results[i].message);
    }
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (results[i].status != Status::ok) continue;
      results[i].values.reserve(requests[i].wanted.size());
      for (const auto& key : requests[i].wanted) results[i].values.push_back(e.get(key));
    }
    return results;
  });
}

void Server::update_local(std::vector<LocalChange> changes) {
  if (changes.empty()) return;
  impl_->post([changes = std::move(changes)](Engine& e) {
    for (const auto& change : changes) {
      if (change.pid) e.set_local_pid(change.id, *change.pid);
      if (change.exit_status) e.end_local(change.id, *change.exit_status);
    }
  });
}

EngineStats Server::stats() {
  return impl_->call([](Engine& e) { return e.stats(); });
}

TransportStats Server::transport_stats() {
  return impl_->call([this](Engine&) { return impl_->transport->stats(); });
}

}  // namespace slipway::rendezvous
