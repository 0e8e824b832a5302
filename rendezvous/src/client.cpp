// The client's public operations: blocking and asynchronous requests, event
// subscriptions and their dispatch thread.
#include "slipway/rendezvous/client.hpp"

#include <pthread.h>
#include "log.hpp"
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include "client_impl.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/token.hpp"

namespace slipway::rendezvous {
namespace {

std::uint32_t to_ms(std::chrono::milliseconds d) {
  if (d.count() <= 0) return 0;
  return static_cast<std::uint32_t>(std::min<long long>(d.count(), 0xffffffffLL));
}

std::string require_env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) {
    throw Error(Status::invalid_request, std::string(name) +
                                             " is not set: this process was not started by slipway "
                                             "(or its environment was cleared)");
  }
  return v;
}

bool on_thread(const std::thread& t) { return t.joinable() && t.get_id() == std::this_thread::get_id(); }

}  // namespace

void Client::Impl::expect_ok(const wire::Reply& r, Status also_fine) {
  if (r.status != Status::ok && r.status != also_fine) {
    throw Error(r.status, r.message.empty() ? std::string(to_string(r.status)) : r.message);
  }
}

void Client::Impl::dispatch_event(Event&& e) {
  Impl& l = link();
  {
    std::lock_guard lock(l.events_mutex);
    l.events.emplace_back(self, std::move(e));
  }
  l.events_cv.notify_one();
}

void Client::Impl::event_loop() {
  pthread_setname_np(pthread_self(), "slipway-rdzv-ev");
  for (;;) {
    Event e;
    // A channel's session is held while its callbacks are collected; this
    // Impl's own is not (it outlives this thread, which it joins).
    std::shared_ptr<Impl> session;
    Impl* target = this;
    {
      std::unique_lock lock(events_mutex);
      events_cv.wait(lock, [&] { return events_stop || !events.empty(); });
      if (events_stop) return;
      const std::weak_ptr<Impl>& to = events.front().first;
      if (to.owner_before(self) || self.owner_before(to)) {
        session = to.lock();
        target = session.get();
      }
      e = std::move(events.front().second);
      events.pop_front();
    }
    if (!target) continue;  // its client is gone
    std::vector<EventCallback> targets;
    {
      std::lock_guard lock(target->subs_mutex);
      const auto bit = static_cast<std::uint8_t>(e.kind);
      for (const auto& [id, sub] : target->subs) {
        if ((sub.kinds & bit) == 0) continue;
        if (e.kind == EventKind::key_changed && e.key.compare(0, sub.prefix.size(), sub.prefix) != 0) continue;
        targets.push_back(sub.callback);
      }
    }
    for (const auto& cb : targets) {
      try {
        cb(e);
      } catch (const std::exception& ex) {
        rdzv_log()->error("rendezvous: an event callback threw: {}", ex.what());
      }
    }
    release_on_link_thread(session);
  }
}

Client::Client(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) { impl_->self = impl_; }

Client::~Client() {
  if (!impl_) return;
  Impl& l = impl_->link();
  if (on_thread(l.reader) || on_thread(l.event_thread)) {
    if (impl_->host) {
      // A channel closed from a callback on its link's threads: close it
      // here; the link must not be destroyed by the thread it would join.
      impl_->shutdown();
      if (impl_->host.use_count() == 1) new std::shared_ptr<Impl>(std::move(impl_->host));  // leaked
      return;
    }
    // Destroyed from one of its own callbacks: the thread cannot join itself.
    // Stop the connection and leave the state to the running thread (leaked).
    ::shutdown(impl_->fd.get(), SHUT_RDWR);
    new std::shared_ptr<Impl>(std::move(impl_));
    return;
  }
}

std::unique_ptr<Client> Client::connect(const std::string& endpoint, const std::string& token,
                                        Identity identity, ClientOptions options) {
  fill_in_host_and_pid(identity);
  auto impl = std::make_shared<Impl>(endpoint, std::move(options));
  impl->identity = std::move(identity);
  impl->open(token, true);
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

std::unique_ptr<Client> Client::connect_observer(const std::string& endpoint, const std::string& token,
                                                 ClientOptions options) {
  auto impl = std::make_shared<Impl>(endpoint, std::move(options));
  impl->open(token, false);
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

std::unique_ptr<Client> Client::connect_from_environment(Identity identity, ClientOptions options) {
  const std::string endpoint = require_env(core::env::kRendezvous);
  return connect(endpoint, require_env(core::env::kToken), std::move(identity), std::move(options));
}

std::unique_ptr<Client> Client::connect_observer_from_environment(ClientOptions options) {
  const std::string endpoint = require_env(core::env::kRendezvous);
  return connect_observer(endpoint, require_env(core::env::kToken), std::move(options));
}

const Identity& Client::identity() const { return impl_->identity; }
bool Client::is_member() const { return impl_->member; }
std::uint64_t Client::join_generation() const { return impl_->generation; }
std::chrono::milliseconds Client::heartbeat_interval() const { return impl_->heartbeat; }

bool Client::connected() const {
  std::lock_guard lock(impl_->pending_mutex);
  return !impl_->broken;
}

void Client::put(const std::string& key, const std::string& value, Scope scope) {
  const auto r = impl_->call([&](std::uint32_t id, std::string& out) { wire::encode(wire::Put{id, scope, key, value}, out); },
                             impl_->options.request_timeout, true);
  Impl::expect_ok(r);
}

std::optional<std::string> Client::get(const std::string& key) {
  auto r = impl_->call([&](std::uint32_t id, std::string& out) { wire::encode(wire::Get{id, key}, out); },
                       impl_->options.request_timeout, true);
  Impl::expect_ok(r, Status::not_found);
  if (r.status == Status::not_found) return std::nullopt;
  return std::move(std::get<wire::ValueBody>(r.body).value);
}

std::optional<std::string> Client::wait_for(const std::string& key, std::chrono::milliseconds timeout) {
  auto r = impl_->call(
      [&](std::uint32_t id, std::string& out) { wire::encode(wire::WaitFor{id, key, to_ms(timeout)}, out); },
      timeout + impl_->options.timeout_grace, false);
  Impl::expect_ok(r, Status::timeout);
  if (r.status == Status::timeout) return std::nullopt;
  return std::move(std::get<wire::ValueBody>(r.body).value);
}

CasResult Client::compare_and_swap(const std::string& key, const std::optional<std::string>& expected,
                                   const std::string& desired, Scope scope) {
  auto r = impl_->call(
      [&](std::uint32_t id, std::string& out) {
        wire::encode(wire::CompareAndSwap{id, scope, key, expected, desired}, out);
      },
      impl_->options.request_timeout, true);
  Impl::expect_ok(r);
  auto& body = std::get<wire::CasBody>(r.body);
  return CasResult{body.swapped, std::move(body.current)};
}

std::int64_t Client::add(const std::string& key, std::int64_t delta, Scope scope) {
  const auto r = impl_->call(
      [&](std::uint32_t id, std::string& out) { wire::encode(wire::Add{id, scope, key, delta}, out); },
      impl_->options.request_timeout, true);
  Impl::expect_ok(r);
  return std::get<wire::AddBody>(r.body).value;
}

bool Client::erase(const std::string& key) {
  const auto r = impl_->call([&](std::uint32_t id, std::string& out) { wire::encode(wire::Erase{id, key}, out); },
                             impl_->options.request_timeout, true);
  Impl::expect_ok(r, Status::not_found);
  return r.status == Status::ok;
}

namespace {
FenceResult to_fence_result(wire::Reply&& r) {
  FenceResult result;
  result.status = r.status;
  result.message = std::move(r.message);
  if (auto* body = std::get_if<wire::FenceBody>(&r.body)) result.blobs = std::move(body->blobs);
  return result;
}
}  // namespace

FenceResult Client::fence(const std::string& name, const MemberSet& members, std::string blob,
                          std::chrono::milliseconds timeout, bool collect) {
  // Without a timeout of its own, the fence waits as long as members live.
  const auto wait = timeout.count() > 0 ? timeout + impl_->options.timeout_grace
                                        : std::chrono::milliseconds(std::chrono::hours(24 * 365));
  auto r = impl_->call(
      [&](std::uint32_t id, std::string& out) {
        wire::encode(wire::Fence{id, name, members, collect, std::move(blob), to_ms(timeout)}, out);
      },
      wait, false);
  return to_fence_result(std::move(r));
}

namespace {

// Registers a subscription on `impl`; true in `first` when its filter is
// new there (the server must be told).
SubscriptionId add_subscription(Client::Impl& impl, std::uint8_t kinds, const std::string& key_prefix,
                                EventCallback callback, bool& first) {
  if (kinds == 0 || (kinds & ~kAllEvents) != 0) {
    throw Error(Status::invalid_request, "subscribe: kinds must be a non-empty mask of EventKind");
  }
  std::lock_guard lock(impl.subs_mutex);
  const SubscriptionId id = impl.next_sub++;
  impl.subs.emplace(id, Client::Impl::Sub{kinds, key_prefix, std::move(callback)});
  first = impl.filters[std::make_pair(kinds, key_prefix)]++ == 0;
  return id;
}

// Undoes add_subscription after the server refused it.
void drop_subscription(Client::Impl& impl, SubscriptionId id, std::uint8_t kinds, const std::string& key_prefix) {
  std::lock_guard lock(impl.subs_mutex);
  impl.subs.erase(id);
  const auto filter = std::make_pair(kinds, key_prefix);
  if (--impl.filters[filter] == 0) impl.filters.erase(filter);
}

}  // namespace

SubscriptionId Client::subscribe(std::uint8_t kinds, const std::string& key_prefix, EventCallback callback) {
  bool first = false;
  const SubscriptionId id = add_subscription(*impl_, kinds, key_prefix, std::move(callback), first);
  if (first) {
    try {
      const auto r = impl_->call(
          [&](std::uint32_t rid, std::string& out) { wire::encode(wire::Subscribe{rid, kinds, key_prefix}, out); },
          impl_->options.request_timeout, true);
      Impl::expect_ok(r);
    } catch (...) {
      drop_subscription(*impl_, id, kinds, key_prefix);
      throw;
    }
  }
  return id;
}

SubscriptionId Client::subscribe_async(std::uint8_t kinds, const std::string& key_prefix, EventCallback callback,
                                       DoneCallback done) {
  bool first = false;
  const SubscriptionId id = add_subscription(*impl_, kinds, key_prefix, std::move(callback), first);
  if (!first) {
    done(Status::ok, {});
    return id;
  }
  std::weak_ptr<Impl> weak = impl_;
  try {
    impl_->submit(
        [&](std::uint32_t rid, std::string& out) { wire::encode(wire::Subscribe{rid, kinds, key_prefix}, out); },
        [weak, id, kinds, key_prefix, done = std::move(done)](wire::Reply&& r) {
          if (r.status != Status::ok) {
            if (auto impl = weak.lock()) drop_subscription(*impl, id, kinds, key_prefix);
          }
          done(r.status, r.message);
        },
        true);
  } catch (...) {
    drop_subscription(*impl_, id, kinds, key_prefix);
    throw;
  }
  return id;
}

void Client::unsubscribe(SubscriptionId id) {
  std::pair<std::uint8_t, std::string> filter;
  bool last = false;
  {
    std::lock_guard lock(impl_->subs_mutex);
    auto it = impl_->subs.find(id);
    if (it == impl_->subs.end()) return;
    filter = {it->second.kinds, it->second.prefix};
    impl_->subs.erase(it);
    last = --impl_->filters[filter] == 0;
    if (last) impl_->filters.erase(filter);
  }
  if (last) {
    const auto r = impl_->call(
        [&](std::uint32_t rid, std::string& out) {
          wire::encode(wire::Unsubscribe{rid, filter.first, filter.second}, out);
        },
        impl_->options.request_timeout, true);
    Impl::expect_ok(r, Status::not_found);
  }
}

void Client::leave(std::int32_t exit_status) {
  const auto r = impl_->call([&](std::uint32_t id, std::string& out) { wire::encode(wire::Leave{id, exit_status}, out); },
                             impl_->options.request_timeout, true);
  Impl::expect_ok(r);
  impl_->member = false;
}

void Client::leave_async(std::int32_t exit_status, DoneCallback done) {
  std::weak_ptr<Impl> weak = impl_;
  impl_->submit([&](std::uint32_t id, std::string& out) { wire::encode(wire::Leave{id, exit_status}, out); },
                [weak, done = std::move(done)](wire::Reply&& r) {
                  if (r.status == Status::ok) {
                    if (auto impl = weak.lock()) impl->member = false;
                  }
                  done(r.status, r.message);
                },
                true);
}

void Client::request_stop(const std::string& reason) {
  const auto r = impl_->call([&](std::uint32_t id, std::string& out) { wire::encode(wire::RequestStop{id, reason}, out); },
                             impl_->options.request_timeout, true);
  Impl::expect_ok(r);
}

MembersSnapshot Client::members() {
  auto r = impl_->call([&](std::uint32_t id, std::string& out) { wire::encode(wire::ListMembers{id}, out); },
                       impl_->options.request_timeout, true);
  Impl::expect_ok(r);
  auto& body = std::get<wire::MembersBody>(r.body);
  return MembersSnapshot{std::move(body.members), body.stopping, std::move(body.stop_reason)};
}

void Client::declare(const std::string& node, std::uint32_t replicas) {
  const auto r = impl_->call([&](std::uint32_t id, std::string& out) { wire::encode(wire::Declare{id, node, replicas}, out); },
                             impl_->options.request_timeout, true);
  Impl::expect_ok(r);
}

void Client::put_async(const std::string& key, const std::string& value, Scope scope, DoneCallback done) {
  impl_->submit([&](std::uint32_t id, std::string& out) { wire::encode(wire::Put{id, scope, key, value}, out); },
                [done = std::move(done)](wire::Reply&& r) { done(r.status, r.message); }, true);
}

namespace {
Client::Impl::ReplyHandler value_handler(Client::ValueCallback done) {
  return [done = std::move(done)](wire::Reply&& r) {
    std::optional<std::string> value;
    if (auto* body = std::get_if<wire::ValueBody>(&r.body)) value = std::move(body->value);
    done(r.status, std::move(value), r.message);
  };
}
}  // namespace

void Client::get_async(const std::string& key, ValueCallback done) {
  impl_->submit([&](std::uint32_t id, std::string& out) { wire::encode(wire::Get{id, key}, out); },
                value_handler(std::move(done)), true);
}

void Client::wait_for_async(const std::string& key, std::chrono::milliseconds timeout, ValueCallback done) {
  impl_->submit(
      [&](std::uint32_t id, std::string& out) { wire::encode(wire::WaitFor{id, key, to_ms(timeout)}, out); },
      value_handler(std::move(done)), false);
}

void Client::fence_async(const std::string& name, const MemberSet& members, std::string blob,
                         std::chrono::milliseconds timeout, bool collect, FenceCallback done) {
  impl_->submit(
      [&](std::uint32_t id, std::string& out) {
        wire::encode(wire::Fence{id, name, members, collect, std::move(blob), to_ms(timeout)}, out);
      },
      [done = std::move(done)](wire::Reply&& r) { done(to_fence_result(std::move(r))); }, false);
}

void Client::close() {
  if (!impl_->host && (on_thread(impl_->reader) || on_thread(impl_->event_thread))) {
    throw Error(Status::invalid_request, "Client::close() from one of its own callbacks");
  }
  impl_->shutdown();
}

}  // namespace slipway::rendezvous
