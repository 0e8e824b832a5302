// LauncherLoop::status_now: the status document (observe/program_status.hpp)
// of the program as the loop sees it, with what the rendezvous holds of its
// tasks (their agents' records, usage keys and replay shards' statistics).
#include <chrono>
#include <map>

#include "launcher_loop.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/server.hpp"

namespace slipway::launch {
namespace {

const char* state_name(UnitState state, bool joined) {
  switch (state) {
    case UnitState::Pending: return "pending";
    case UnitState::Running: return joined ? "running" : "pending";
    case UnitState::Backoff: return "backoff";
    case UnitState::Succeeded: return "succeeded";
    case UnitState::Failed: return "failed";
    case UnitState::Stopped: return "stopped";
    case UnitState::Idle: return "idle";
  }
  return "pending";
}

std::int64_t unix_ms_now() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

observe::ProgramStatus LauncherLoop::status_now() const {
  auto& server = control_->server();
  observe::ProgramStatus s;
  s.program = *plan_.program.name;
  s.run = run_dir_.path();
  s.resume = run_dir_.resume_count();
  s.unix_ms = unix_ms_now();
  s.started_unix_ms = started_unix_ms_;
  s.state = finished_ ? "finished" : supervisor_->stopping() ? "stopping" : "running";
  s.stop_reason = stop_reason_;
  const auto stats = server.stats();
  s.rendezvous = {control_->endpoint(), stats.members_alive, stats.requests, stats.connections};

  // Each task's newest record of the current attempt: host, pid, start.
  std::map<std::string, const rendezvous::MemberRecord*> records;
  const auto members = server.members();
  for (const auto& m : members) {
    const auto* r = &m;
    auto [it, fresh] = records.emplace(m.identity.name(), r);
    if (!fresh && it->second->identity.attempt <= m.identity.attempt) it->second = r;
  }
  std::vector<std::string> keys;
  keys.reserve(plan_.tasks.size());
  for (const core::Task& t : plan_.tasks) keys.push_back(core::keys::usage(t.node, t.replica));
  std::vector<const core::Task*> replay_tasks;
  for (const core::Task& t : plan_.tasks) {
    if (plan_.node(t).type.value == core::NodeType::replay) {
      replay_tasks.push_back(&t);
      keys.push_back(core::keys::replay_stats(t.node, t.replica));
    }
  }
  const auto values = server.get_many(keys);

  for (const core::NodeSpec& spec : plan_.program.nodes) {
    observe::NodeStatus node;
    node.name = *spec.name;
    node.type = std::string(core::to_string(spec.type.value));
    for (const auto& h : spec.handles) node.handles.push_back(h.value);
    node.min = spec.replicas.value.min;
    node.max = spec.replicas.value.max;
    node.elastic = elastic_->nodes().knows(node.name);
    node.world = forms_world(spec.framework.value);
    node.daemon = spec.daemon.value;
    node.replicas = node.elastic ? static_cast<std::uint32_t>(elastic_->nodes().live(node.name).size())
                                 : static_cast<std::uint32_t>(plan_.tasks_of(node.name).size());
    for (const core::Task* t : plan_.tasks_of(node.name)) {
      const std::size_t unit = unit_of_task_.at(static_cast<std::size_t>(t - plan_.tasks.data()));
      const auto view = supervisor_->unit(unit);
      observe::TaskStatus task;
      task.replica = t->replica;
      const std::string name = t->name();
      const rendezvous::MemberRecord* record = nullptr;
      if (auto it = records.find(name); it != records.end()) record = it->second;
      const bool current = record && static_cast<int>(record->identity.attempt) == task_attempt(view.attempt);
      const bool joined = current && record->state == rendezvous::MemberState::alive;
      task.state = state_name(view.state, joined);
      task.attempt = task_attempt(view.attempt);
      task.restarts = task.attempt;
      if (node.world) task.epoch = unit_epoch(unit);
      task.host = current ? record->identity.host : unit_host_name(unit);
      if (joined) {
        task.pid = record->identity.pid;
        task.started_unix_ms = record->joined_unix_ms;
      }
      if (const auto& usage = values[t->id]; usage && view.state == UnitState::Running) {
        if (auto parsed = observe::parse_usage(*usage)) {
          task.cpu_seconds = parsed->cpu_seconds;
          task.rss_bytes = parsed->rss_bytes;
        }
      }
      task.last_exit = observer_->last_exit(name);
      node.tasks.push_back(std::move(task));
    }
    if (node.world && !node.tasks.empty()) node.epoch = node.tasks.front().epoch;
    observe::finish_node(node);
    s.nodes.push_back(std::move(node));
  }
  for (std::size_t k = 0; k < replay_tasks.size(); ++k) {
    const auto& value = values[plan_.tasks.size() + k];
    if (!value) continue;
    if (auto replay = observe::parse_replay_stats(replay_tasks[k]->name(), *value)) s.replay.push_back(std::move(*replay));
  }
  return s;
}

}  // namespace slipway::launch
