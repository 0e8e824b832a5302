// Members with no connection: the tasks the launcher runs itself (its task
// runner's in-process control plane). They join under the rules a connected
// member's join follows, but have no heartbeats: they live in the
// rendezvous's own process. See Engine::join_local in engine.hpp.
#include "engine_state.hpp"
#include "log.hpp"

namespace slipway::rendezvous {

namespace {

// The live local member `id` names (same node, replica and attempt, no
// connection), or nullptr.
Member* local_member(Engine::State& s, const Identity& id) {
  auto node = s.nodes.find(id.node);
  if (node == s.nodes.end()) return nullptr;
  auto rep = node->second.replicas.find(id.replica);
  if (rep == node->second.replicas.end()) return nullptr;
  Member& m = rep->second;
  if (m.conn != 0 || m.record.state != MemberState::alive ||
      m.record.identity.attempt != id.attempt) {
    return nullptr;
  }
  return &m;
}

}  // namespace

Status Engine::join_local(const Identity& id,
                          const std::vector<std::pair<std::string, std::string>>& task_keys,
                          std::string& message) {
  State& s = *state_;
  const Limits& l = s.options.limits;
  std::uint64_t bytes = 0;
  for (const auto& [key, value] : task_keys) {
    if (key.empty() || key.size() > l.max_key_bytes || value.size() > l.max_value_bytes) {
      message = "task key '" + key + "' is empty or above Limits::max_key_bytes/max_value_bytes";
      return Status::limit_exceeded;
    }
    bytes += key.size() + value.size();
  }
  if (s.kv.size() + task_keys.size() > l.max_keys || s.kv_bytes + bytes > l.max_kv_bytes) {
    message = "the store has no room for " + std::to_string(task_keys.size()) +
              " more keys (Limits::max_keys/max_kv_bytes)";
    return Status::limit_exceeded;
  }
  std::uint64_t generation = 0;
  Status st = s.join(nullptr, id, message, generation);
  if (st != Status::ok) {
    s.reap();
    return st;
  }
  Member* m = local_member(s, id);
  s.publish_member(EventKind::member_joined, m->record);
  for (const auto& [key, value] : task_keys) {
    st = s.store(m, key, value, Scope::task, message);
    if (st != Status::ok) break;  // checked above; only a concurrent limit can refuse
  }
  s.reap();
  return st;
}

void Engine::set_local_pid(const Identity& id, std::int64_t pid) {
  if (Member* m = local_member(*state_, id)) m->record.identity.pid = pid;
}

void Engine::end_local(const Identity& id, std::int32_t exit_status) {
  Member* m = local_member(*state_, id);
  if (!m) return;
  rdzv_log()->info("rendezvous: {} (run by the launcher) ended with exit status {}", id.name(), exit_status);
  state_->end_member(*m, MemberState::left, exit_status, {});
  state_->reap();
}

}  // namespace slipway::rendezvous
