// The key-value store: put/get/compare-and-swap/add/erase with scopes,
// withdrawal of a dead member's keys, and pushed wait-for-key with deadlines.
#include <charconv>
#include <limits>

#include "engine_state.hpp"

namespace slipway::rendezvous {

Status Engine::State::store(Member* owner, const std::string& key, std::string value, Scope scope,
                            std::string& message) {
  const Limits& l = options.limits;
  if (key.empty()) {
    message = "the key is empty";
    return Status::invalid_request;
  }
  if (key.size() > l.max_key_bytes || value.size() > l.max_value_bytes) {
    message = "key or value above Limits::max_key_bytes/max_value_bytes";
    return Status::limit_exceeded;
  }
  if (scope == Scope::program) {
    owner = nullptr;
  } else {
    if (!owner) {
      message = "only a joined member owns " + std::string(to_string(scope)) +
                "-scoped keys; use Scope::program";
      return Status::not_member;
    }
  }
  auto it = kv.find(key);
  const std::uint64_t old_bytes = it == kv.end() ? 0 : key.size() + it->second.value.size();
  const std::uint64_t new_bytes = key.size() + value.size();
  if (it == kv.end() && kv.size() >= l.max_keys) {
    message = "the store holds Limits::max_keys = " + std::to_string(l.max_keys) + " keys";
    return Status::limit_exceeded;
  }
  if (kv_bytes - old_bytes + new_bytes > l.max_kv_bytes) {
    message = "the store would exceed Limits::max_kv_bytes = " + std::to_string(l.max_kv_bytes);
    return Status::limit_exceeded;
  }
  if (it == kv.end()) it = kv.emplace(key, Entry{}).first;
  Entry& e = it->second;
  kv_bytes = kv_bytes - old_bytes + new_bytes;
  const bool same_task_owner =
      e.scope == Scope::task && e.owner == owner && owner && e.owner_attempt == owner->record.identity.attempt;
  const bool same_node_owner = e.scope == Scope::node && owner && e.owner_node == owner->node;
  e.value = std::move(value);
  e.scope = scope;
  e.owner = scope == Scope::task ? owner : nullptr;
  e.owner_attempt = owner ? owner->record.identity.attempt : 0;
  e.owner_node = scope == Scope::node ? owner->node : nullptr;
  if (scope == Scope::task && !same_task_owner) owner->task_keys.push_back(key);
  if (scope == Scope::node && !same_node_owner) owner->node->node_keys.push_back(key);
  wake_waiters(key, e.value);
  publish_key(key, &e.value);
  return Status::ok;
}

void Engine::State::erase_key(const std::string& key) {
  auto it = kv.find(key);
  if (it == kv.end()) return;
  kv_bytes -= key.size() + it->second.value.size();
  kv.erase(it);
  publish_key(key, nullptr);
}

void Engine::State::withdraw_task_keys(Member& m) {
  std::vector<std::string> keys;
  keys.swap(m.task_keys);
  for (const auto& key : keys) {
    auto it = kv.find(key);
    if (it == kv.end()) continue;
    const Entry& e = it->second;
    if (e.scope == Scope::task && e.owner == &m && e.owner_attempt == m.record.identity.attempt) {
      erase_key(key);
    }
  }
}

void Engine::State::withdraw_node_keys(NodeInfo& n) {
  std::vector<std::string> keys;
  keys.swap(n.node_keys);
  for (const auto& key : keys) {
    auto it = kv.find(key);
    if (it != kv.end() && it->second.scope == Scope::node && it->second.owner_node == &n) erase_key(key);
  }
}

void Engine::State::handle_put(Conn& c, wire::Put& m) {
  std::string message;
  const Status st = store(c.member, m.key, std::move(m.value), m.scope, message);
  reply(c, m.id, st, std::move(message));
}

void Engine::State::handle_get(Conn& c, const wire::Get& m) {
  auto it = kv.find(m.key);
  scratch.clear();
  if (it == kv.end()) {
    wire::encode_value_reply(m.id, Status::not_found, nullptr, scratch);
  } else {
    wire::encode_value_reply(m.id, Status::ok, &it->second.value, scratch);
  }
  transport.send(c.id, scratch);
}

void Engine::State::handle_wait(Conn& c, const wire::WaitFor& m, TimePoint now) {
  auto it = kv.find(m.key);
  if (it != kv.end()) {
    scratch.clear();
    wire::encode_value_reply(m.id, Status::ok, &it->second.value, scratch);
    transport.send(c.id, scratch);
    return;
  }
  if (m.timeout_ms > options.limits.max_timeout_ms) {
    reply(c, m.id, Status::invalid_request,
          "timeout above Limits::max_timeout_ms = " + std::to_string(options.limits.max_timeout_ms));
    return;
  }
  if (m.timeout_ms == 0) {
    reply(c, m.id, Status::timeout, "key '" + m.key + "' is not set");
    return;
  }
  if (c.waits.size() >= options.limits.max_waits_per_connection) {
    reply(c, m.id, Status::limit_exceeded,
          "too many pending waits on this connection (Limits::max_waits_per_connection = " +
              std::to_string(options.limits.max_waits_per_connection) + ")");
    return;
  }
  const std::uint64_t seq = next_wait++;
  const TimePoint deadline = now + std::chrono::milliseconds(m.timeout_ms);
  waiters.emplace(seq, Waiter{c.id, m.id, m.key, deadline});
  waiters_by_key[m.key].push_back(seq);
  wait_deadlines.emplace(deadline, seq);
  c.waits.push_back(seq);
}

void Engine::State::wake_waiters(const std::string& key, const std::string& value) {
  auto it = waiters_by_key.find(key);
  if (it == waiters_by_key.end()) return;
  const std::vector<std::uint64_t> seqs = std::move(it->second);
  waiters_by_key.erase(it);
  scratch.clear();
  for (std::uint64_t seq : seqs) {
    auto w = waiters.find(seq);
    if (w == waiters.end()) continue;
    auto conn = conns.find(w->second.conn);
    if (conn != conns.end() && !conn->second.closed) {
      scratch.clear();
      wire::encode_value_reply(w->second.request, Status::ok, &value, scratch);
      transport.send(conn->first, scratch);
    }
    drop_waiter(seq);
  }
}

void Engine::State::drop_waiter(std::uint64_t seq) {
  auto w = waiters.find(seq);
  if (w == waiters.end()) return;
  const Waiter& waiter = w->second;
  wait_deadlines.erase({waiter.deadline, seq});
  auto by_key = waiters_by_key.find(waiter.key);
  if (by_key != waiters_by_key.end()) {
    auto& v = by_key->second;
    std::erase(v, seq);
    if (v.empty()) waiters_by_key.erase(by_key);
  }
  auto conn = conns.find(waiter.conn);
  if (conn != conns.end()) std::erase(conn->second.waits, seq);
  waiters.erase(w);
}

void Engine::State::expire_waits(TimePoint now) {
  while (!wait_deadlines.empty() && wait_deadlines.begin()->first <= now) {
    const std::uint64_t seq = wait_deadlines.begin()->second;
    auto w = waiters.find(seq);
    if (w == waiters.end()) {
      wait_deadlines.erase(wait_deadlines.begin());
      continue;
    }
    auto conn = conns.find(w->second.conn);
    if (conn != conns.end()) {
      reply(conn->second, w->second.request, Status::timeout,
            "key '" + w->second.key + "' was not set in time");
    }
    drop_waiter(seq);
  }
}

void Engine::State::handle_cas(Conn& c, wire::CompareAndSwap& m) {
  auto it = kv.find(m.key);
  const bool matches = m.expected ? (it != kv.end() && it->second.value == *m.expected) : it == kv.end();
  if (!matches) {
    wire::CasBody body;
    body.swapped = false;
    if (it != kv.end()) body.current = it->second.value;
    reply(c, m.id, Status::ok, {}, std::move(body));
    return;
  }
  std::string message;
  const Status st = store(c.member, m.key, m.desired, m.scope, message);
  if (st != Status::ok) {
    reply(c, m.id, st, std::move(message));
    return;
  }
  reply(c, m.id, Status::ok, {}, wire::CasBody{true, std::move(m.desired)});
}

void Engine::State::handle_add(Conn& c, const wire::Add& m) {
  std::int64_t current = 0;
  auto it = kv.find(m.key);
  if (it != kv.end()) {
    const std::string& v = it->second.value;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), current);
    if (ec != std::errc() || end != v.data() + v.size()) {
      reply(c, m.id, Status::not_integer, "key '" + m.key + "' does not hold a decimal integer");
      return;
    }
  }
  std::int64_t result = 0;
  if (__builtin_add_overflow(current, m.delta, &result)) {
    reply(c, m.id, Status::invalid_request, "adding to key '" + m.key + "' would overflow 64 bits");
    return;
  }
  std::string message;
  const Status st = store(c.member, m.key, std::to_string(result), m.scope, message);
  if (st != Status::ok) {
    reply(c, m.id, st, std::move(message));
    return;
  }
  reply(c, m.id, Status::ok, {}, wire::AddBody{result});
}

void Engine::State::handle_erase(Conn& c, const wire::Erase& m) {
  if (!kv.count(m.key)) {
    reply(c, m.id, Status::not_found, "key '" + m.key + "' is not set");
    return;
  }
  erase_key(m.key);
  reply(c, m.id, Status::ok);
}

}  // namespace slipway::rendezvous
