// Test harness for the I/O-free engine: a recording transport, a settable
// clock and helpers that perform the handshake and requests as a client would.
// Fault injection hooks: drop a connection, stop its heartbeats (advance the
// clock), feed bytes split anywhere, feed garbage.
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "slipway/rendezvous/engine.hpp"
#include "slipway/rendezvous/wire.hpp"

namespace slipway::rendezvous::test {

inline constexpr const char* kToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

class RecordingTransport : public Transport {
 public:
  void send(ConnId conn, std::string_view frames) override {
    if (closed.count(conn)) sends_after_close++;
    out[conn].append(frames);
  }
  void send_shared(ConnId conn, std::string_view prefix,
                   std::shared_ptr<const std::string> body) override {
    if (closed.count(conn)) sends_after_close++;
    out[conn].append(prefix);
    out[conn].append(*body);
  }
  void close(ConnId conn) override { closed.insert(conn); }
  bool backlogged(ConnId conn) override { return held.count(conn) != 0; }

  // Decodes and removes every frame queued for `conn`.
  std::vector<wire::Message> take(ConnId conn) {
    std::vector<wire::Message> msgs;
    std::string& buf = out[conn];
    std::size_t pos = 0;
    while (buf.size() - pos >= 4) {
      const auto* p = reinterpret_cast<const std::uint8_t*>(buf.data() + pos);
      const std::uint32_t len = p[0] | (p[1] << 8) | (p[2] << 16) | (std::uint32_t{p[3]} << 24);
      if (buf.size() - pos - 4 < len) break;
      wire::Message m;
      std::string error;
      if (!wire::decode(std::span(p + 4, len), Limits{}, m, error)) {
        throw std::runtime_error("engine sent an undecodable frame: " + error);
      }
      msgs.push_back(std::move(m));
      pos += 4 + len;
    }
    buf.erase(0, pos);
    return msgs;
  }

  std::map<ConnId, std::string> out;
  std::set<ConnId> closed;
  std::set<ConnId> held;  // connections reported backlogged
  int sends_after_close = 0;
};

class Harness {
 public:
  explicit Harness(EngineOptions options = {}) : engine_(make_options(std::move(options)), transport) {}

  static EngineOptions defaults() {
    EngineOptions o;
    o.token = kToken;
    o.heartbeat_interval = std::chrono::milliseconds(100);
    o.miss_budget = 3;
    return o;
  }

  Engine& engine() { return engine_; }
  TimePoint now() const { return now_; }
  void advance(std::chrono::milliseconds d) {
    now_ += d;
    engine_.tick(now_);
  }

  ConnId open() {
    const ConnId id = next_conn_++;
    REQUIRE(engine_.connected(id, "10.0.0.1:" + std::to_string(40000 + id), now_));
    auto msgs = transport.take(id);
    REQUIRE(msgs.size() == 1);
    challenges_[id] = std::get<wire::Challenge>(msgs[0]);
    return id;
  }

  wire::Hello hello_for(ConnId id, wire::Role role, const Identity& identity,
                        const std::string& token = kToken) {
    wire::Hello h;
    h.role = role;
    h.identity = identity;
    h.client_nonce[0] = static_cast<std::uint8_t>(id);
    h.mac = wire::client_mac(HmacKey(token), challenges_.at(id).server_nonce, h);
    return h;
  }

  // Handshake; returns the Welcome.
  wire::Welcome authenticate(ConnId id, wire::Role role, const Identity& identity,
                             const std::string& token = kToken) {
    send(id, hello_for(id, role, identity, token));
    auto msgs = transport.take(id);
    REQUIRE(msgs.size() >= 1);
    return std::get<wire::Welcome>(msgs[0]);
  }

  ConnId join(const std::string& node, std::uint32_t replica, std::uint32_t attempt = 0) {
    const ConnId id = open();
    const auto w = authenticate(id, wire::Role::member, Identity{node, replica, attempt, "host", 1000 + replica});
    REQUIRE(w.status == Status::ok);
    REQUIRE(w.server_mac == wire::server_mac(HmacKey(kToken), challenges_.at(id).server_nonce,
                                             hello_for(id, wire::Role::member, {}).client_nonce));
    return id;
  }

  ConnId observer() {
    const ConnId id = open();
    REQUIRE(authenticate(id, wire::Role::observer, {}).status == Status::ok);
    return id;
  }

  void send(ConnId id, const wire::Message& m) {
    std::string frame;
    wire::encode(m, frame);
    feed(id, frame);
  }
  void feed(ConnId id, const std::string& bytes) {
    engine_.received(id, std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), now_);
  }

  // Sends a request and returns the one reply it got.
  wire::Reply request(ConnId id, const wire::Message& m) {
    send(id, m);
    auto replies = replies_of(id);
    REQUIRE(replies.size() == 1);
    return replies[0];
  }

  std::vector<wire::Reply> replies_of(ConnId id) {
    std::vector<wire::Reply> out;
    for (auto& m : transport.take(id)) {
      if (auto* r = std::get_if<wire::Reply>(&m)) {
        out.push_back(std::move(*r));
      } else if (auto* e = std::get_if<Event>(&m)) {
        events_[id].push_back(std::move(*e));
      }
    }
    return out;
  }

  std::vector<Event> events_of(ConnId id) {
    replies_of(id);
    auto out = std::move(events_[id]);
    events_[id].clear();
    return out;
  }

  std::uint32_t next_id() { return next_request_++; }
  const wire::Challenge& challenge(ConnId id) const { return challenges_.at(id); }

  RecordingTransport transport;
  std::vector<Event> observed;
  // Called as the in-process observer hears each event (after `observed`).
  std::function<void(const Event&)> on_observed;

 private:
  EngineOptions make_options(EngineOptions o) {
    if (o.token.empty()) o = defaults();
    o.on_event = [this](const Event& e) {
      observed.push_back(e);
      if (on_observed) on_observed(e);
    };
    std::uint8_t counter = 0;
    o.make_nonce = [counter]() mutable {
      wire::Nonce n{};
      n[0] = ++counter;
      return n;
    };
    o.wall_clock_ms = [this] { return std::chrono::duration_cast<std::chrono::milliseconds>(now_.time_since_epoch()).count(); };
    return o;
  }

  TimePoint now_ = TimePoint{} + std::chrono::hours(1);
  ConnId next_conn_ = 1;
  std::uint32_t next_request_ = 1;
  std::map<ConnId, wire::Challenge> challenges_;
  std::map<ConnId, std::vector<Event>> events_;
  Engine engine_;
};

}  // namespace slipway::rendezvous::test
