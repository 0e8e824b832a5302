// Authentication and membership: the Hello check, joins with their attempt
// rules, leaving, failing, generations, recycling of departed records,
// declared replica counts and the member snapshot.
#include "log.hpp"

#include "engine_state.hpp"

namespace slipway::rendezvous {

void Engine::State::welcome(Conn& c, Status status, const std::string& message,
                            const wire::Hello& hello, std::uint64_t generation) {
  wire::Welcome w;
  w.status = status;
  w.message = message;
  w.generation = generation;
  if (status == Status::ok) w.server_mac = wire::server_mac(hmac, c.server_nonce, hello.client_nonce);
  scratch.clear();
  wire::encode(w, scratch);
  transport.send(c.id, scratch);
}

void Engine::State::handle_hello(Conn& c, const wire::Hello& hello) {
  // The claimed identity is the peer's text, unauthenticated yet: escaped.
  const std::string claimed = hello.role == wire::Role::member
                                  ? " (claims " + printable(hello.identity.name()) + ")"
                                  : " (observer)";
  if (hello.version != wire::kProtocolVersion) {
    rdzv_log()->warn("rendezvous: connection from {}{} speaks protocol {}, this server {}; closing",
                 c.peer, claimed, hello.version, wire::kProtocolVersion);
    welcome(c, Status::invalid_request,
            "protocol version " + std::to_string(hello.version) + " is not supported (server speaks " +
                std::to_string(wire::kProtocolVersion) + "): use the same slipway version everywhere",
            hello, 0);
    close_conn(c, "");
    return;
  }
  const Digest expected = wire::client_mac(hmac, c.server_nonce, hello, c.channel);
  if (!constant_time_equal(expected, hello.mac)) {
    // The secret is never logged, only that it did not match.
    rdzv_log()->warn("rendezvous: authentication failed for {}{}: wrong or missing secret; "
                 "connection closed",
                 c.peer, claimed);
    welcome(c, Status::auth_failed,
            "authentication failed: the secret (SLIPWAY_TOKEN) does not match this program's", hello,
            0);
    close_conn(c, "");
    return;
  }
  c.reader.set_max_frame_bytes(options.limits.max_frame_bytes);
  authenticated(c);
  if (hello.role == wire::Role::observer) {
    if (c.parent != 0) {
      welcome(c, Status::invalid_request, "a channel carries a member, not an observer", hello, 0);
      close_conn(c, "");
      return;
    }
    welcome(c, Status::ok, {}, hello, 0);
    return;
  }
  std::string message;
  std::uint64_t generation = 0;
  const Status st = join(&c, hello.identity, message, generation);
  if (st != Status::ok) {
    rdzv_log()->warn("rendezvous: refusing {} from {}: {}", printable(hello.identity.name()), c.peer,
                     printable(message));
    welcome(c, st, message, hello, 0);
    close_conn(c, "");
    return;
  }
  c.welcomed = true;
  welcome(c, Status::ok, {}, hello, generation);
  publish_member(EventKind::member_joined, c.member->record);
}

Status Engine::State::join(Conn* c, const Identity& id, std::string& message,
                           std::uint64_t& generation) {
  if (id.node.empty()) {
    message = "a member needs a node name";
    return Status::invalid_request;
  }
  auto node_it = nodes.find(id.node);
  const bool new_record =
      node_it == nodes.end() || !node_it->second.replicas.count(id.replica);
  if (new_record && member_records >= options.limits.max_members) {
    // Room for a record: forget the oldest departed one (which may forget
    // its node, so look the node up again).
    if (!recycle_departed_record()) {
      message = "too many members alive (Limits::max_members = " +
                std::to_string(options.limits.max_members) + ")";
      return Status::limit_exceeded;
    }
    node_it = nodes.find(id.node);
  }
  if (node_it == nodes.end()) {
    node_it = nodes.emplace(id.node, NodeInfo{}).first;
    node_it->second.name = id.node;
    node_it->second.generation = generation_floor;
  }
  NodeInfo& node = node_it->second;
  auto rep_it = node.replicas.find(id.replica);
  if (rep_it != node.replicas.end()) {
    Member& old = rep_it->second;
    const auto& rec = old.record;
    if (rec.state == MemberState::alive) {
      if (id.attempt == rec.identity.attempt) {
        message = id.name() + " attempt " + std::to_string(id.attempt) +
                  " has already joined (host " + rec.identity.host + ", pid " +
                  std::to_string(rec.identity.pid) + "); a task joins once per attempt";
        return Status::duplicate_member;
      }
      if (id.attempt < rec.identity.attempt) {
        message = id.name() + " attempt " + std::to_string(id.attempt) + " is older than attempt " +
                  std::to_string(rec.identity.attempt) + " which is alive";
        return Status::stale_attempt;
      }
      // A newer attempt replaces an old one the launcher has given up on.
      const std::string why = "superseded by attempt " + std::to_string(id.attempt);
      rdzv_log()->warn("rendezvous: {} attempt {} failed: {}", id.name(), rec.identity.attempt, why);
      if (old.conn != 0) {
        auto conn_it = conns.find(old.conn);
        if (conn_it != conns.end()) close_conn(conn_it->second, why);
      } else {
        end_member(old, MemberState::failed, 0, why);  // a task the launcher ran itself
      }
    } else if (id.attempt <= rec.identity.attempt) {
      message = id.name() + " attempt " + std::to_string(rec.identity.attempt) + " has already " +
                (rec.state == MemberState::left ? "left" : "failed") +
                "; joining again needs a newer attempt (SLIPWAY_ATTEMPT)";
      return Status::stale_attempt;
    }
  } else {
    rep_it = node.replicas.emplace(id.replica, Member{}).first;
    rep_it->second.node = &node;
    ++member_records;
  }
  Member& m = rep_it->second;
  if (m.departed_list) {
    m.departed_list->erase(m.departed_at);
    m.departed_list = nullptr;
  }
  disown_task_keys(m);
  m.record = MemberRecord{};
  m.record.identity = id;
  m.record.state = MemberState::alive;
  m.record.generation = ++node.generation;
  m.record.joined_unix_ms = options.wall_clock_ms();
  m.conn = c ? c->id : 0;
  ++node.alive;
  ++members_alive;
  if (c) {
    c->member = &m;
    c->phase = Conn::Phase::member;
  }
  generation = m.record.generation;
  return Status::ok;
}

// A member stops being alive: it left (exit status) or failed (reason). Its
// task keys are withdrawn unless it left with status 0 (a finished task's
// address stays, so a peer that starts later is not left waiting for it),
// fences over it fail, subscribers hear of it.
void Engine::State::end_member(Member& m, MemberState state, std::int32_t exit_status,
                               const std::string& reason) {
  if (m.record.state != MemberState::alive) return;
  NodeInfo& node = *m.node;
  m.record.state = state;
  m.record.exit_status = exit_status;
  m.record.reason = state == MemberState::failed ? reason : std::string();
  m.record.ended_unix_ms = options.wall_clock_ms();
  m.record.generation = ++node.generation;
  --node.alive;
  --members_alive;
  m.conn = 0;
  const bool in_program = node.declared > 0 && m.record.identity.replica < node.declared;
  m.departed_list = in_program ? &departed_inside : &departed_outside;
  m.departed_at = m.departed_list->insert(m.departed_list->end(), &m);
  if (state == MemberState::failed || exit_status != 0) withdraw_task_keys(m);
  if (node.alive == 0) withdraw_node_keys(node);
  fail_fences_of(m);
  publish_member(state == MemberState::left ? EventKind::member_left : EventKind::member_failed,
                 m.record);
}

void Engine::State::handle_leave(Conn& c, const wire::Leave& msg) {
  if (!c.member) {
    reply(c, msg.id, Status::not_member, "only a joined member can leave");
    return;
  }
  Member* m = c.member;
  c.member = nullptr;
  c.phase = Conn::Phase::observer;
  rdzv_log()->info("rendezvous: {} left with exit status {}", m->record.identity.name(), msg.exit_status);
  reply(c, msg.id, Status::ok);
  end_member(*m, MemberState::left, msg.exit_status, {});
}

// Forgets the oldest departed record, outside the declared program first
// (a record inside it is what refuses a stale attempt of a real task);
// false when every record is alive. A node left with no record, no declared
// count and no live member goes too; its generation raises the floor new
// nodes start from.
bool Engine::State::recycle_departed_record() {
  std::list<Member*>& from = departed_outside.empty() ? departed_inside : departed_outside;
  if (from.empty()) return false;
  Member& m = *from.front();
  from.pop_front();
  disown_task_keys(m);
  NodeInfo& node = *m.node;
  node.replicas.erase(m.record.identity.replica);
  --member_records;
  ++recycled_records;
  if (node.replicas.empty() && node.declared == 0 && node.alive == 0) {
    generation_floor = std::max(generation_floor, node.generation);
    const std::string name = node.name;
    nodes.erase(name);
  }
  return true;
}

// The keys `m` put with Scope::task that still name it as their owner (a
// finished attempt's, kept) stop naming it, before the record is reused or
// forgotten: a later record never takes them for its own.
void Engine::State::disown_task_keys(Member& m) {
  for (const auto& key : m.task_keys) {
    auto it = kv.find(key);
    if (it != kv.end() && it->second.owner == &m) it->second.owner = nullptr;
  }
  m.task_keys.clear();
}

Status Engine::State::declare_node(const std::string& name, std::uint32_t replicas,
                                   std::string& message) {
  if (name.empty()) {
    message = "declare needs a node name";
    return Status::invalid_request;
  }
  auto it = nodes.find(name);
  if (it == nodes.end()) {
    if (replicas == 0) return Status::ok;  // nothing to record
    if (nodes.size() >= options.limits.max_members) {
      message = "too many nodes (Limits::max_members = " + std::to_string(options.limits.max_members) + ")";
      return Status::limit_exceeded;
    }
    it = nodes.emplace(name, NodeInfo{}).first;
    it->second.name = name;
    it->second.generation = generation_floor;
  }
  NodeInfo& node = it->second;
  if (node.declared == 0 && replicas > 0) ++declared_nodes;
  if (node.declared > 0 && replicas == 0) --declared_nodes;
  node.declared = replicas;
  return Status::ok;
}

std::vector<MemberRecord> Engine::State::snapshot() const {
  std::vector<MemberRecord> out;
  out.reserve(member_records);
  std::vector<const NodeInfo*> sorted;
  sorted.reserve(nodes.size());
  for (const auto& [name, node] : nodes) sorted.push_back(&node);
  std::sort(sorted.begin(), sorted.end(),
            [](const NodeInfo* a, const NodeInfo* b) { return a->name < b->name; });
  for (const NodeInfo* node : sorted) {
    for (const auto& [replica, m] : node->replicas) out.push_back(m.record);
  }
  return out;
}

}  // namespace slipway::rendezvous
