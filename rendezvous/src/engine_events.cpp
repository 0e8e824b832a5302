// Events: per-connection subscriptions (kind mask + key prefix), pushed
// events encoded once and shared between subscribers, the in-process
// observer, and the program-stopping state.
#include <algorithm>

#include "engine_state.hpp"

namespace slipway::rendezvous {
namespace {

bool matches(const Conn& c, EventKind kind, const std::string* key) {
  const auto bit = static_cast<std::uint8_t>(kind);
  for (const auto& s : c.subscriptions) {
    if ((s.kinds & bit) == 0) continue;
    if (key == nullptr || key->compare(0, s.prefix.size(), s.prefix) == 0) return true;
  }
  return false;
}

}  // namespace

void Engine::State::handle_subscribe(Conn& c, const wire::Subscribe& m) {
  if (c.subscriptions.size() >= options.limits.max_subscriptions_per_connection) {
    reply(c, m.id, Status::limit_exceeded,
          "too many subscriptions on this connection (Limits::max_subscriptions_per_connection = " +
              std::to_string(options.limits.max_subscriptions_per_connection) + ")");
    return;
  }
  c.subscriptions.push_back(Subscription{m.kinds, m.key_prefix});
  subscribers.insert(c.id);
  reply(c, m.id, Status::ok);
  // A late subscriber still hears that the program is stopping (a stop not
  // broadcast yet reaches it with the broadcast).
  if (stopping && !stop_broadcast_due &&
      (m.kinds & static_cast<std::uint8_t>(EventKind::program_stopping))) {
    scratch.clear();
    wire::encode(stop_event(), scratch);
    transport.send(c.id, scratch);
  }
}

void Engine::State::handle_unsubscribe(Conn& c, const wire::Unsubscribe& m) {
  auto& subs = c.subscriptions;
  for (auto it = subs.begin(); it != subs.end(); ++it) {
    if (it->kinds == m.kinds && it->prefix == m.key_prefix) {
      subs.erase(it);
      if (subs.empty()) subscribers.erase(c.id);
      reply(c, m.id, Status::ok);
      return;
    }
  }
  reply(c, m.id, Status::not_found, "no such subscription on this connection");
}

// Sends `e` to every subscriber whose filters match, encoding it once.
static void broadcast(Engine::State& s, const Event& e, const std::string* key) {
  std::shared_ptr<const std::string> body;
  for (ConnId id : s.subscribers) {
    auto it = s.conns.find(id);
    if (it == s.conns.end() || it->second.closed || !matches(it->second, e.kind, key)) continue;
    if (!body) {
      std::string frame;
      wire::encode(e, frame);
      body = std::make_shared<const std::string>(std::move(frame));
    }
    s.transport.send_shared(id, {}, body);
  }
}

void Engine::State::publish_member(EventKind kind, const MemberRecord& record) {
  Event e;
  e.kind = kind;
  e.member = record;
  if (!subscribers.empty()) broadcast(*this, e, nullptr);
  if (options.on_event) observer_queue.push_back(std::move(e));
}

void Engine::State::publish_key(const std::string& key, const std::string* value) {
  const bool observed =
      options.on_event && std::any_of(options.observed_key_prefixes.begin(),
                                      options.observed_key_prefixes.end(),
                                      [&key](const std::string& prefix) { return key.starts_with(prefix); });
  if (subscribers.empty() && !observed) return;
  Event e;
  e.kind = EventKind::key_changed;
  e.key = key;
  if (value) e.value = *value;
  if (!subscribers.empty()) broadcast(*this, e, &key);
  if (observed) observer_queue.push_back(std::move(e));
}

void Engine::State::begin_stop(const std::string& reason) {
  if (stopping) return;
  stopping = true;
  stop_reason = reason;
  // The observer (the launcher) hears of the stop before any task can: the
  // broadcast waits for reap(), after the observer, so a task stopped by it
  // is never mistaken for a failure.
  if (options.on_event) observer_queue.push_back(stop_event());
  stop_broadcast_due = true;
}

Event Engine::State::stop_event() const {
  Event e;
  e.kind = EventKind::program_stopping;
  e.reason = stop_reason;
  return e;
}

void Engine::State::send_due_stop() {
  if (!stop_broadcast_due) return;
  stop_broadcast_due = false;
  if (!subscribers.empty()) broadcast(*this, stop_event(), nullptr);
}

}  // namespace slipway::rendezvous
