// Many members on one connection: an agent (slipway-exec, a launcher) opens
// a channel per task on its one authenticated connection. Each channel is a
// connection of its own inside the engine (a Conn with a parent), so
// admission, attempts, keys, waits, fences and events work per member as on
// a connection of their own; what is per connection is shared: heartbeats
// and silence, backpressure, and the loss of the connection, which fails
// every member on it. A member that leaves, is superseded or whose client
// closes its channel touches no other channel. docs/rendezvous.md, "Many
// members on one connection".
#include "engine_state.hpp"
#include "log.hpp"

namespace slipway::rendezvous {

ConnId ChannelRouter::open(ConnId parent, std::uint32_t channel) {
  const ConnId id = next_++;
  routes_.emplace(id, Route{parent, channel});
  return id;
}

void ChannelRouter::send(ConnId conn, std::string_view frames) {
  if (!is_channel(conn)) return real_.send(conn, frames);
  auto it = routes_.find(conn);
  if (it == routes_.end()) return;
  wrapped_.clear();
  wire::wrap_in_channel(it->second.channel, frames, wrapped_);
  real_.send(it->second.parent, wrapped_);
}

void ChannelRouter::send_shared(ConnId conn, std::string_view prefix,
                                std::shared_ptr<const std::string> body) {
  if (!is_channel(conn)) return real_.send_shared(conn, prefix, std::move(body));
  auto it = routes_.find(conn);
  if (it == routes_.end()) return;
  if (prefix.empty()) {
    // A whole shared frame (an event): wrapped in a copy of its own.
    send(conn, *body);
    return;
  }
  real_.send_shared(it->second.parent, wire::channel_prefix(it->second.channel, prefix),
                    std::move(body));
}

void ChannelRouter::close(ConnId conn) {
  if (!is_channel(conn)) return real_.close(conn);
  routes_.erase(conn);
}

bool ChannelRouter::backlogged(ConnId conn) {
  if (!is_channel(conn)) return real_.backlogged(conn);
  auto it = routes_.find(conn);
  return it != routes_.end() && real_.backlogged(it->second.parent);
}

Conn& Engine::State::carrier(Conn& c) {
  if (c.parent == 0) return c;
  auto it = conns.find(c.parent);
  return it == conns.end() ? c : it->second;
}

void Engine::State::handle_channel_frame(Conn& c, std::span<const std::uint8_t> body,
                                         TimePoint now) {
  std::uint32_t channel = 0;
  std::span<const std::uint8_t> inner;
  if (!wire::split_channel(body, channel, inner)) {
    protocol_error(c, "malformed channel frame");
    return;
  }
  wire::Message m;
  std::string error;
  if (!wire::decode(inner, options.limits, m, error)) {
    protocol_error(c, "channel " + std::to_string(channel) + ": " + error);
    return;
  }
  if (!c.channels) c.channels = std::make_unique<std::unordered_map<std::uint32_t, ConnId>>();
  auto it = c.channels->find(channel);
  if (it == c.channels->end()) {
    if (auto* hello = std::get_if<wire::Hello>(&m)) {
      open_channel(c, channel, *hello, now);
    }
    // Anything else names a channel this server closed (its Closed notice
    // is on its way to the client) or refused: dropped.
    return;
  }
  Conn& child = conns.at(it->second);
  if (std::holds_alternative<wire::Hello>(m)) {
    protocol_error(c, "a Hello on channel " + std::to_string(channel) + ", which is open already");
    return;
  }
  if (std::holds_alternative<wire::Closed>(m)) {
    if (child.member) {
      rdzv_log()->warn("rendezvous: {} failed: its agent closed its channel", child.describe());
    }
    child.welcomed = false;  // the client knows: no Closed notice back
    close_conn(child, "connection lost");
    return;
  }
  handle_request(child, m, now);
}

void Engine::State::open_channel(Conn& c, std::uint32_t channel, const wire::Hello& hello,
                                 TimePoint now) {
  const std::uint32_t cap = options.limits.max_channels_per_connection;
  if (c.channels->size() >= cap) {
    wire::Welcome refusal;
    refusal.status = Status::limit_exceeded;
    refusal.message = "this connection carries " + std::to_string(c.channels->size()) +
                      " members already (Limits::max_channels_per_connection = " +
                      std::to_string(cap) + "): open another connection";
    scratch.clear();
    wire::encode(refusal, scratch);
    std::string framed;
    wire::wrap_in_channel(channel, scratch, framed);
    transport.send(c.id, framed);
    return;
  }
  const ConnId id = router.open(c.id, channel);
  Conn& child = conns.try_emplace(id, id, c.peer, wire::kFrameHeaderBytes, now).first->second;
  child.parent = c.id;
  child.channel = channel;
  child.server_nonce = c.server_nonce;
  c.channels->emplace(channel, id);
  ++channel_conns;
  handle_hello(child, hello);
}

void Engine::State::close_channels(Conn& c, const std::string& why) {
  std::vector<ConnId> ids;
  ids.reserve(c.channels->size());
  for (const auto& [channel, id] : *c.channels) ids.push_back(id);
  for (ConnId id : ids) {
    auto it = conns.find(id);
    if (it == conns.end()) continue;
    if (it->second.member) rdzv_log()->warn("rendezvous: {} failed: {}", it->second.describe(), why);
    close_conn(it->second, why);
  }
}

void Engine::State::detach_channel(Conn& c, const std::string& why) {
  auto p = conns.find(c.parent);
  if (p == conns.end()) return;
  if (p->second.channels) p->second.channels->erase(c.channel);
  if (p->second.closed || !c.welcomed) return;
  scratch.clear();
  wire::encode(wire::Closed{Status::connection_lost, why.empty() ? "channel closed" : why}, scratch);
  transport.send(c.id, scratch);  // still routed: the router forgets it at close
}

}  // namespace slipway::rendezvous
