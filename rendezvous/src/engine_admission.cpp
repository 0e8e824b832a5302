// Admission of connections before authentication: the total and per-address
// caps on connections that have not sent a valid Hello, and their fixed
// authentication deadline (independent of the heartbeat interval).
//
// At a cap a new connection is admitted and the oldest unauthenticated one
// (from that address, or from any) is closed instead of the new one being
// refused: a peer that keeps the cap full by reconnecting then only ever
// closes its own older connections, and a program's task (whose Hello
// follows its connection within a round trip) is closed only if the cap's
// worth of newer connections arrive before its Hello, which no peer can
// keep up (docs/rendezvous.md, "Security").
#include "engine_state.hpp"
#include "log.hpp"

namespace slipway::rendezvous {
namespace {

// "10.0.0.1:4000" -> "10.0.0.1"; "[::1]:4000" -> "[::1]".
std::string address_of(const std::string& peer) {
  const auto colon = peer.rfind(':');
  if (colon == std::string::npos || colon + 1 == peer.size()) return peer;
  for (std::size_t i = colon + 1; i < peer.size(); ++i) {
    if (peer[i] < '0' || peer[i] > '9') return peer;
  }
  return peer.substr(0, colon);
}

}  // namespace

bool Engine::accepting() const {
  const State& s = *state_;
  return s.conns.size() - s.channel_conns < s.options.limits.max_connections;
}

// Closes the connection that has waited longest for its Hello, among those
// from `address` (all when empty); false when there is none.
bool Engine::State::evict_oldest_unauthenticated(const std::string& address, TimePoint now,
                                                 const std::string& why) {
  for (const auto& [deadline, id] : auth_deadlines) {
    auto it = conns.find(id);
    if (it == conns.end() || it->second.closed || it->second.phase != Conn::Phase::hello) continue;
    if (!address.empty() && it->second.address_count &&
        it->second.address_count->first != address) {
      continue;
    }
    ++evicted_connections;
    std::uint64_t skipped = 0;
    if (eviction_log.allow(now, skipped)) {
      rdzv_log()->warn("rendezvous: closing the connection from {}, the oldest of those that have "
                       "not authenticated, to admit a newer one: {}{}",
                       it->second.peer, why,
                       skipped ? " (and " + std::to_string(skipped) +
                                     " more since the last such message)"
                               : std::string());
    }
    close_conn(it->second, "");
    return true;
  }
  return false;
}

// Counts the new connection, or refuses it (logged at most once a second,
// with how many were refused since: a flood must not flood the log too).
bool Engine::State::admit(ConnId id, const std::string& peer, TimePoint now) {
  const Limits& l = options.limits;
  std::string address = address_of(peer);
  if (conns.size() - channel_conns >= l.max_connections) {
    ++refused_connections;
    std::uint64_t skipped = 0;
    if (refusal_log.allow(now, skipped)) {
      rdzv_log()->warn("rendezvous: refusing the connection from {}: {} connections open "
                       "(Limits::max_connections){}",
                       peer, conns.size() - channel_conns,
                       skipped ? " (and " + std::to_string(skipped) +
                                     " more since the last such message)"
                               : std::string());
    }
    return false;
  }
  auto per_address = unauthenticated_by_address.find(address);
  if (per_address != unauthenticated_by_address.end() &&
      per_address->second >= l.max_unauthenticated_per_address) {
    evict_oldest_unauthenticated(address, now,
                                 std::to_string(per_address->second) + " connections from " +
                                     address + " wait for authentication "
                                     "(Limits::max_unauthenticated_per_address)");
  }
  if (unauthenticated >= l.max_unauthenticated) {
    evict_oldest_unauthenticated({}, now,
                                 std::to_string(unauthenticated) +
                                     " connections wait for authentication "
                                     "(Limits::max_unauthenticated)");
  }
  auto [it, inserted] = conns.try_emplace(id, id, peer, l.max_unauthenticated_frame_bytes, now);
  if (!inserted) return false;
  ++unauthenticated;
  auto& count = *unauthenticated_by_address.try_emplace(std::move(address), 0).first;
  ++count.second;
  it->second.address_count = &count;
  auth_deadlines.emplace_back(now + std::chrono::milliseconds(l.auth_timeout_ms), id);
  return true;
}

void Engine::State::forget_unauthenticated(Conn& c) {
  if (c.phase != Conn::Phase::hello || !c.address_count) return;
  --unauthenticated;
  if (--c.address_count->second == 0) {
    unauthenticated_by_address.erase(unauthenticated_by_address.find(c.address_count->first));
  }
  c.address_count = nullptr;
}

void Engine::State::authenticated(Conn& c) {
  forget_unauthenticated(c);
  c.phase = Conn::Phase::observer;  // the caller sets member where it joins
}

void Engine::State::expire_unauthenticated(TimePoint now) {
  while (!auth_deadlines.empty() && auth_deadlines.front().first <= now) {
    const ConnId id = auth_deadlines.front().second;
    auth_deadlines.pop_front();
    auto it = conns.find(id);
    if (it == conns.end() || it->second.closed || it->second.phase != Conn::Phase::hello) continue;
    std::uint64_t skipped = 0;
    if (auth_timeout_log.allow(now, skipped)) {
      rdzv_log()->warn("rendezvous: closing the connection from {}: no authentication within {} ms{}",
                  it->second.peer, options.limits.auth_timeout_ms,
                  skipped ? " (and " + std::to_string(skipped) + " more since the last such message)"
                          : std::string());
    }
    close_conn(it->second, "");
  }
}

TimePoint Engine::State::next_auth_deadline() const {
  return auth_deadlines.empty() ? TimePoint::max() : auth_deadlines.front().first;
}

}  // namespace slipway::rendezvous
