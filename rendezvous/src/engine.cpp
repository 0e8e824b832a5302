// The engine's entry points: connection lifecycle, frame dispatch, deadlines
// and the launcher's in-process operations.
#include "log.hpp"

#include <algorithm>

#include "engine_state.hpp"
#include "slipway/rendezvous/token.hpp"

namespace slipway::rendezvous {

std::string Conn::describe() const {
  if (member) return printable(member->record.identity.name()) + " (" + peer + ")";
  return peer;
}

std::int64_t FenceState::slot_of(const std::string& node, std::uint32_t replica) const {
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const auto& r = ranges[i];
    if (r.node == node && replica >= r.first && replica - r.first < r.count) {
      return std::int64_t{offsets[i]} + (replica - r.first);
    }
  }
  return -1;
}

Engine::State::State(EngineOptions opts, Transport& t)
    : options(std::move(opts)),
      router(t),
      transport(router),
      hmac(options.token),
      heartbeat_budget(options.heartbeat_interval * std::max<std::uint32_t>(1, options.miss_budget)) {
  if (!options.make_nonce) {
    // Nonces from the kernel CSPRNG, drawn 128 at a time (one syscall).
    options.make_nonce = [pool = std::vector<std::uint8_t>(), used = std::size_t{0}]() mutable {
      if (used + 32 > pool.size()) {
        pool.resize(32 * 128);
        random_bytes(pool);
        used = 0;
      }
      wire::Nonce n;
      std::copy_n(pool.begin() + static_cast<std::ptrdiff_t>(used), 32, n.begin());
      std::fill_n(pool.begin() + static_cast<std::ptrdiff_t>(used), 32, 0);
      used += 32;
      return n;
    };
  }
  if (!options.wall_clock_ms) {
    options.wall_clock_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
}

Engine::Engine(EngineOptions options, Transport& transport) {
  if (options.token.empty()) {
    throw std::invalid_argument("rendezvous: the program's secret is empty (set a token)");
  }
  if (options.heartbeat_interval.count() <= 0) {
    throw std::invalid_argument("rendezvous: the heartbeat interval must be positive");
  }
  state_ = std::make_unique<State>(std::move(options), transport);
}

Engine::~Engine() = default;

bool Engine::connected(ConnId conn, std::string peer, TimePoint now) {
  State& s = *state_;
  if (!s.admit(conn, peer, now)) return false;
  Conn& c = s.conns.at(conn);
  c.server_nonce = s.options.make_nonce();
  wire::Challenge challenge;
  challenge.server_nonce = c.server_nonce;
  challenge.heartbeat_interval_ms = static_cast<std::uint32_t>(s.options.heartbeat_interval.count());
  challenge.miss_budget = s.options.miss_budget;
  s.scratch.clear();
  wire::encode(challenge, s.scratch);
  s.transport.send(conn, s.scratch);
  if (s.next_scan == TimePoint::min()) s.next_scan = now + s.options.heartbeat_interval / 2;
  return true;
}

void Engine::received(ConnId conn, std::span<const std::uint8_t> bytes, TimePoint now) {
  State& s = *state_;
  auto it = s.conns.find(conn);
  if (it == s.conns.end() || it->second.closed) return;
  Conn& c = it->second;
  c.last_seen = now;
  s.consume(c, bytes, now);
  s.reap();
}

void Engine::resume(ConnId conn, TimePoint now) {
  State& s = *state_;
  auto it = s.conns.find(conn);
  if (it == s.conns.end() || it->second.closed || !it->second.held) return;
  it->second.held = false;
  s.consume(it->second, {}, now);
  s.reap();
}

// Serves the frames of `bytes` (after those held back), one at a time;
// after each the transport is asked whether the peer reads its replies:
// while it does not, the rest is held (Transport::backlogged). The transport
// feeds and resumes only a connection that is not backlogged, so at most one
// reply is queued past the mark.
void Engine::State::consume(Conn& c, std::span<const std::uint8_t> bytes, TimePoint now) {
  const bool ok = c.reader.feed(bytes, [&](std::span<const std::uint8_t> body) {
    if (!handle_frame(c, body, now)) return false;
    if (c.phase != Conn::Phase::hello && transport.backlogged(c.id)) {
      c.held = true;
      c.reader.hold();
      return false;
    }
    return true;
  });
  if (!ok && !c.closed) protocol_error(c, c.reader.error());
}

void Engine::disconnected(ConnId conn, TimePoint) {
  State& s = *state_;
  auto it = s.conns.find(conn);
  if (it == s.conns.end() || it->second.closed) return;
  Conn& c = it->second;
  if (c.member) {
    rdzv_log()->warn("rendezvous: {} failed: connection lost", c.describe());
  }
  s.close_conn(c, "connection lost");
  s.reap();
}

void Engine::tick(TimePoint now) {
  State& s = *state_;
  s.expire_unauthenticated(now);
  s.expire_waits(now);
  s.expire_fences(now);
  if (now >= s.next_scan) s.scan(now);
  s.reap();
}

TimePoint Engine::next_deadline() const {
  const State& s = *state_;
  // Heartbeat scans while members are connected; authentication deadlines apart.
  TimePoint next = s.members_alive == 0 || s.conns.empty() ? TimePoint::max() : s.next_scan;
  next = std::min(next, s.next_auth_deadline());
  if (!s.wait_deadlines.empty()) next = std::min(next, s.wait_deadlines.begin()->first);
  if (!s.fence_deadlines.empty()) next = std::min(next, s.fence_deadlines.begin()->first);
  return next;
}

// Heartbeat deadlines. Runs every half interval: a member is declared failed
// between budget and budget + interval/2 after its last frame.
//
// Silence counts only while the server was looking. A scan more than an
// interval after the last one means the server itself did not run (its host
// starved of CPU, as when 1,000 tasks start on two cores): heartbeats sent
// meanwhile may still wait unread in its sockets, so the stall is taken off
// every member's silence rather than failing them for the server's lag.
void Engine::State::scan(TimePoint now) {
  next_scan = now + options.heartbeat_interval / 2;
  TimePoint::duration stall{0};  // how long the server did not look
  if (last_scan != TimePoint::min() && now - last_scan > options.heartbeat_interval) {
    stall = now - last_scan - options.heartbeat_interval / 2;
  }
  last_scan = now;
  std::vector<ConnId> silent;
  for (auto& [id, c] : conns) {
    // A channel's member is as alive as the connection carrying it.
    if (c.closed || c.parent != 0 || (c.phase != Conn::Phase::member && !c.carries_channels())) continue;
    if (stall.count() > 0) c.last_seen = std::min(now, c.last_seen + stall);
    if (now - c.last_seen > heartbeat_budget) silent.push_back(id);
  }
  for (ConnId id : silent) {
    Conn& c = conns.at(id);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - c.last_seen).count();
    const std::string why = "no heartbeat for " + std::to_string(ms) + " ms (budget " +
                            std::to_string(options.miss_budget) + " x " +
                            std::to_string(options.heartbeat_interval.count()) + " ms)";
    rdzv_log()->warn("rendezvous: {} failed: {}", c.describe(), why);
    close_conn(c, why);
  }
}

bool Engine::State::handle_frame(Conn& c, std::span<const std::uint8_t> body, TimePoint now) {
  if (c.phase != Conn::Phase::hello && !body.empty() &&
      body[0] == static_cast<std::uint8_t>(wire::Type::channel)) {
    handle_channel_frame(c, body, now);
    return !c.closed;
  }
  wire::Message m;
  std::string error;
  if (!wire::decode(body, options.limits, m, error)) {
    protocol_error(c, error);
    return false;
  }
  if (c.phase == Conn::Phase::hello) {
    if (auto* hello = std::get_if<wire::Hello>(&m)) {
      handle_hello(c, *hello);
    } else {
      protocol_error(c, "the first message must be Hello");
    }
    return !c.closed;
  }
  handle_request(c, m, now);
  return !c.closed;
}

namespace {

// What in a request is above its bound ("the value is N bytes, above
// Limits::max_value_bytes = M"), or empty. The decoder bounds keys, values
// and blobs of requests by the frame only, so that an oversized one is
// answered limit_exceeded instead of closing the connection.
std::string oversized(const wire::Message& m, const Limits& l) {
  std::string what;
  auto check = [&](std::size_t size, std::uint32_t bound, const char* field, const char* name) {
    if (what.empty() && size > bound) {
      what = std::string("the ") + field + " is " + std::to_string(size) + " bytes, above Limits::" +
             name + " = " + std::to_string(bound);
    }
  };
  std::visit(
      [&](const auto& msg) {
        using T = std::decay_t<decltype(msg)>;
        if constexpr (std::is_same_v<T, wire::Put>) {
          check(msg.key.size(), l.max_key_bytes, "key", "max_key_bytes");
          check(msg.value.size(), l.max_value_bytes, "value", "max_value_bytes");
        } else if constexpr (std::is_same_v<T, wire::CompareAndSwap>) {
          check(msg.key.size(), l.max_key_bytes, "key", "max_key_bytes");
          check(msg.expected ? msg.expected->size() : 0, l.max_value_bytes, "expected value", "max_value_bytes");
          check(msg.desired.size(), l.max_value_bytes, "desired value", "max_value_bytes");
        } else if constexpr (std::is_same_v<T, wire::Get> || std::is_same_v<T, wire::WaitFor> ||
                             std::is_same_v<T, wire::Add> || std::is_same_v<T, wire::Erase>) {
          check(msg.key.size(), l.max_key_bytes, "key", "max_key_bytes");
        } else if constexpr (std::is_same_v<T, wire::Subscribe> || std::is_same_v<T, wire::Unsubscribe>) {
          check(msg.key_prefix.size(), l.max_key_bytes, "key prefix", "max_key_bytes");
        } else if constexpr (std::is_same_v<T, wire::Fence>) {
          check(msg.blob.size(), l.max_blob_bytes, "fence blob", "max_blob_bytes");
        }
      },
      m);
  return what;
}

std::uint32_t request_id(const wire::Message& m) {
  return std::visit(
      [](const auto& msg) -> std::uint32_t {
        if constexpr (requires { msg.id; }) {
          return msg.id;
        } else {
          return 0;
        }
      },
      m);
}

}  // namespace

void Engine::State::handle_request(Conn& c, wire::Message& m, TimePoint now) {
  ++requests;
  if (const std::string what = oversized(m, options.limits); !what.empty()) {
    reply(c, request_id(m), Status::limit_exceeded, what);
    return;
  }
  std::visit(
      [&](auto& msg) {
        using T = std::decay_t<decltype(msg)>;
        if constexpr (std::is_same_v<T, wire::Heartbeat>) {
          // last_seen is already updated. Answered, so that the client can
          // tell a live server from a network that went silent.
          if (!c.closed) {
            scratch.clear();
            wire::encode(wire::Heartbeat{}, scratch);
            transport.send(c.id, scratch);
          }
        } else if constexpr (std::is_same_v<T, wire::Put>) {
          handle_put(c, msg);
        } else if constexpr (std::is_same_v<T, wire::Get>) {
          handle_get(c, msg);
        } else if constexpr (std::is_same_v<T, wire::WaitFor>) {
          handle_wait(c, msg, now);
        } else if constexpr (std::is_same_v<T, wire::CompareAndSwap>) {
          handle_cas(c, msg);
        } else if constexpr (std::is_same_v<T, wire::Add>) {
          handle_add(c, msg);
        } else if constexpr (std::is_same_v<T, wire::Erase>) {
          handle_erase(c, msg);
        } else if constexpr (std::is_same_v<T, wire::Fence>) {
          handle_fence(c, msg, now);
        } else if constexpr (std::is_same_v<T, wire::Subscribe>) {
          handle_subscribe(c, msg);
        } else if constexpr (std::is_same_v<T, wire::Unsubscribe>) {
          handle_unsubscribe(c, msg);
        } else if constexpr (std::is_same_v<T, wire::Leave>) {
          handle_leave(c, msg);
        } else if constexpr (std::is_same_v<T, wire::RequestStop>) {
          rdzv_log()->info("rendezvous: {} requests program stop: {}", c.describe(), printable(msg.reason));
          begin_stop(msg.reason);
          reply(c, msg.id, Status::ok);
        } else if constexpr (std::is_same_v<T, wire::ListMembers>) {
          wire::MembersBody body;
          body.members = snapshot();
          body.stopping = stopping;
          body.stop_reason = stop_reason;
          reply(c, msg.id, Status::ok, {}, std::move(body));
        } else if constexpr (std::is_same_v<T, wire::Declare>) {
          std::string message;
          const Status st = declare_node(msg.node, msg.replicas, message);
          reply(c, msg.id, st, std::move(message));
        } else {
          protocol_error(c, "a client may not send this message type");
        }
      },
      m);
}

void Engine::State::reply(Conn& c, std::uint32_t id, Status status, std::string message,
                          wire::ReplyBody body) {
  if (c.closed) return;
  scratch.clear();
  wire::encode(wire::Reply{id, status, std::move(message), std::move(body)}, scratch);
  if (scratch.size() - wire::kFrameHeaderBytes > options.limits.max_frame_bytes) {
    scratch.clear();
    wire::encode(wire::Reply{id, Status::limit_exceeded,
                             "the reply would exceed Limits::max_frame_bytes (" +
                                 std::to_string(options.limits.max_frame_bytes) + " bytes)",
                             std::monostate{}},
                 scratch);
  }
  transport.send(c.id, scratch);
}

// Closes the connection (with every channel on it) that sent a malformed
// or forbidden frame.
void Engine::State::protocol_error(Conn& c, const std::string& what) {
  rdzv_log()->warn("rendezvous: protocol error from {}: {}; closing the connection", c.describe(), what);
  close_conn(carrier(c), "protocol error: " + what);
}

// Forgets a connection: a live member on it fails with `why_failed`; its
// waits and subscriptions go; the transport flushes and closes it.
void Engine::State::close_conn(Conn& c, const std::string& why_failed) {
  if (c.closed) return;
  c.closed = true;
  forget_unauthenticated(c);
  if (c.carries_channels()) close_channels(c, why_failed.empty() ? "connection closed" : why_failed);
  if (c.member) {
    Member* m = c.member;
    c.member = nullptr;
    m->conn = 0;
    end_member(*m, MemberState::failed, 0, why_failed.empty() ? "connection closed" : why_failed);
  }
  for (std::uint64_t seq : std::vector<std::uint64_t>(c.waits)) drop_waiter(seq);
  subscribers.erase(c.id);
  if (c.parent != 0) detach_channel(c, why_failed);
  transport.close(c.id);
  doomed.push_back(c.id);
}

// Ends every public engine call: forgets closed connections, then hands
// queued events to the in-process observer (which may call the engine
// again), then tells subscribers of a stop the observer has now heard.
void Engine::State::reap() {
  for (ConnId id : doomed) {
    if (conns.erase(id) && router.is_channel(id)) --channel_conns;
  }
  doomed.clear();
  while (!observer_queue.empty()) {
    std::vector<Event> events;
    events.swap(observer_queue);
    for (const auto& e : events) options.on_event(e);
  }
  send_due_stop();
}

void Engine::put(const std::string& key, const std::string& value) {
  std::string message;
  const Status st = state_->store(nullptr, key, value, Scope::program, message);
  if (st != Status::ok) throw std::invalid_argument("rendezvous: put '" + key + "': " + message);
  state_->reap();
}

std::optional<std::string> Engine::get(const std::string& key) const {
  auto it = state_->kv.find(key);
  if (it == state_->kv.end()) return std::nullopt;
  return it->second.value;
}

bool Engine::erase(const std::string& key) {
  if (!state_->kv.count(key)) return false;
  state_->erase_key(key);
  state_->reap();
  return true;
}

void Engine::declare(const std::string& node, std::uint32_t replicas) {
  std::string message;
  if (state_->declare_node(node, replicas, message) != Status::ok) {
    throw std::invalid_argument("rendezvous: " + message);
  }
}

void Engine::request_stop(const std::string& reason) {
  state_->begin_stop(reason);
  state_->reap();
}

bool Engine::stopping() const { return state_->stopping; }


std::vector<MemberRecord> Engine::members() const { return state_->snapshot(); }

EngineStats Engine::stats() const {
  const State& s = *state_;
  EngineStats st;
  st.connections = s.conns.size() - s.channel_conns;
  st.channels = s.channel_conns;
  st.unauthenticated = s.unauthenticated;
  st.refused_connections = s.refused_connections;
  st.evicted_connections = s.evicted_connections;
  st.recycled_records = s.recycled_records;
  st.requests = s.requests;
  st.members_alive = s.members_alive;
  st.member_records = s.member_records;
  st.keys = s.kv.size();
  st.kv_bytes = s.kv_bytes;
  st.pending_waits = s.waiters.size();
  st.pending_fences = s.fences.size();
  for (const auto& [name, f] : s.fences) st.fence_waiters += f.arrived;
  return st;
}

}  // namespace slipway::rendezvous
