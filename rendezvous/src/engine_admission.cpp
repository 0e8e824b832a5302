// Admission of connections before authentication: the total and per-address
// caps on connections that have not sent a valid Hello, and their fixed
// authentication deadline (independent of the heartbeat interval).
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
  return s.unauthenticated < s.options.limits.max_unauthenticated &&
         s.conns.size() < s.options.limits.max_connections;
}

// Counts the new connection, or refuses it (logged at most once a second,
// with how many were refused since: a flood must not flood the log too).
bool Engine::State::admit(ConnId id, const std::string& peer, TimePoint now) {
  const Limits& l = options.limits;
  std::string address = address_of(peer);
  std::string why;
  auto per_address = unauthenticated_by_address.find(address);
  if (conns.size() >= l.max_connections) {
    why = std::to_string(conns.size()) + " connections open (Limits::max_connections)";
  } else if (unauthenticated >= l.max_unauthenticated) {
    why = std::to_string(unauthenticated) +
          " connections wait for authentication (Limits::max_unauthenticated)";
  } else if (per_address != unauthenticated_by_address.end() &&
             per_address->second >= l.max_unauthenticated_per_address) {
    why = std::to_string(per_address->second) + " connections from " + address +
          " wait for authentication (Limits::max_unauthenticated_per_address)";
  }
  if (!why.empty()) {
    ++refused_connections;
    std::uint64_t skipped = 0;
    if (refusal_log.allow(now, skipped)) {
      rdzv_log()->warn("rendezvous: refusing the connection from {}: {}{}", peer, why,
                  skipped ? " (and " + std::to_string(skipped) + " more since the last such message)"
                          : std::string());
    }
    return false;
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
