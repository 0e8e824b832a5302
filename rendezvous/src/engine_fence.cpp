// Fences: a barrier plus an allgather of per-member blobs over a member set.
// A fence completes when every member of the set has entered; it fails at
// once, for every participant, when a member of the set fails or leaves, or
// when a participant's timeout passes. A member set lies within the declared
// program (when anything is declared), and a fence holds a slot only for each
// member that has entered.
#include <algorithm>

#include "engine_state.hpp"

namespace slipway::rendezvous {
namespace {

std::string member_name(const std::string& node, std::uint32_t replica) {
  return node + "." + std::to_string(replica);
}

std::string ended_how(const MemberRecord& r) {
  if (r.state == MemberState::left) return "left with exit status " + std::to_string(r.exit_status);
  return "failed (" + r.reason + ")";
}

}  // namespace

bool Engine::State::resolve(const MemberSet& set, std::vector<NodeRange>& out,
                            std::string& message) const {
  out.clear();
  if (set.whole_program) {
    if (!set.ranges.empty()) {
      message = "a member set is either the whole program or explicit ranges, not both";
      return false;
    }
    for (const auto& [name, node] : nodes) {
      if (node.declared > 0) out.push_back(NodeRange{name, 0, node.declared});
    }
    if (out.empty()) {
      message = "the program's membership is not declared (Server::declare or Client::declare "
                "each node's replica count)";
      return false;
    }
    std::sort(out.begin(), out.end(),
              [](const NodeRange& a, const NodeRange& b) { return a.node < b.node; });
  } else {
    if (set.ranges.empty()) {
      message = "the member set is empty";
      return false;
    }
    for (const auto& r : set.ranges) {
      NodeRange resolved = r;
      if (r.node.empty()) {
        message = "a member set range has no node name";
        return false;
      }
      auto it = nodes.find(r.node);
      const std::uint32_t declared = it == nodes.end() ? 0 : it->second.declared;
      if (declared == 0 && declared_nodes > 0) {
        message = "node '" + r.node + "' is not declared in this program (" +
                  std::to_string(declared_nodes) +
                  " nodes are): a fence's members must be declared (Server::declare or Client::declare)";
        return false;
      }
      if (r.count == 0) {
        if (declared == 0) {
          message = "node '" + r.node + "' has no declared replica count: give the range a count "
                    "or declare the node";
          return false;
        }
        if (r.first >= it->second.declared) {
          message = "range " + member_name(r.node, r.first) + ".. starts past the " +
                    std::to_string(it->second.declared) + " declared replicas";
          return false;
        }
        resolved.count = it->second.declared - r.first;
      }
      if (std::uint64_t{resolved.first} + resolved.count > 0xffffffffull) {
        message = "range of node '" + r.node + "' runs past replica 2^32";
        return false;
      }
      if (declared > 0 && std::uint64_t{resolved.first} + resolved.count > declared) {
        message = "range " + member_name(r.node, r.first) + " (+" + std::to_string(resolved.count) +
                  ") runs past the " + std::to_string(declared) + " declared replicas of node '" +
                  r.node + "' (declare more first)";
        return false;
      }
      out.push_back(std::move(resolved));
    }
    std::vector<const NodeRange*> sorted;
    for (const auto& r : out) sorted.push_back(&r);
    std::sort(sorted.begin(), sorted.end(), [](const NodeRange* a, const NodeRange* b) {
      return a->node != b->node ? a->node < b->node : a->first < b->first;
    });
    for (std::size_t i = 1; i < sorted.size(); ++i) {
      const NodeRange& a = *sorted[i - 1];
      const NodeRange& b = *sorted[i];
      if (a.node == b.node && std::uint64_t{a.first} + a.count > b.first) {
        message = "the member set names " + member_name(b.node, b.first) + " twice";
        return false;
      }
    }
  }
  std::uint64_t total = 0;
  for (const auto& r : out) total += r.count;
  if (total > options.limits.max_members) {
    message = "the member set has " + std::to_string(total) +
              " members, above Limits::max_members = " + std::to_string(options.limits.max_members);
    return false;
  }
  return true;
}

void Engine::State::handle_fence(Conn& c, wire::Fence& m, TimePoint now) {
  if (!c.member) {
    reply(c, m.id, Status::not_member, "only joined members take part in fences");
    return;
  }
  if (m.name.empty()) {
    reply(c, m.id, Status::invalid_request, "a fence needs a name");
    return;
  }
  if (m.timeout_ms > options.limits.max_timeout_ms) {
    reply(c, m.id, Status::invalid_request,
          "timeout above Limits::max_timeout_ms = " + std::to_string(options.limits.max_timeout_ms));
    return;
  }
  std::vector<NodeRange> ranges;
  std::string message;
  if (!resolve(m.members, ranges, message)) {
    reply(c, m.id, Status::invalid_request, "fence '" + m.name + "': " + message);
    return;
  }
  const Identity& me = c.member->record.identity;
  auto it = fences.find(m.name);
  if (it == fences.end()) {
    if (fences.size() >= options.limits.max_fences) {
      reply(c, m.id, Status::limit_exceeded,
            "too many fences pending (Limits::max_fences = " + std::to_string(options.limits.max_fences) + ")");
      return;
    }
    FenceState f;
    f.name = m.name;
    f.collect = m.collect;
    f.ranges = std::move(ranges);
    for (const auto& r : f.ranges) {
      f.offsets.push_back(f.total);
      f.total += r.count;  // at most Limits::max_members (resolve)
    }
    if (f.slot_of(me.node, me.replica) < 0) {
      reply(c, m.id, Status::invalid_request,
            "fence '" + m.name + "': " + me.name() + " is not in its member set");
      return;
    }
    // A member of the set that is already dead fails the fence now.
    for (const auto& r : f.ranges) {
      auto node = nodes.find(r.node);
      if (node == nodes.end()) continue;
      const auto& reps = node->second.replicas;
      for (auto rep = reps.lower_bound(r.first); rep != reps.end() && rep->first - r.first < r.count; ++rep) {
        if (rep->second.record.state != MemberState::alive) {
          reply(c, m.id, Status::member_failed,
                "fence '" + m.name + "' cannot complete: " + member_name(r.node, rep->first) + " " +
                    ended_how(rep->second.record));
          return;
        }
      }
    }
    it = fences.emplace(m.name, std::move(f)).first;
  } else if (it->second.ranges != ranges || it->second.collect != m.collect) {
    reply(c, m.id, Status::fence_mismatch,
          "fence '" + m.name + "': " + me.name() +
              " gave a different member set or collect flag than the members already in it");
    return;
  }
  FenceState& f = it->second;
  const std::int64_t slot_index = f.slot_of(me.node, me.replica);
  if (slot_index < 0) {
    reply(c, m.id, Status::invalid_request,
          "fence '" + m.name + "': " + me.name() + " is not in its member set");
    return;
  }
  auto [slot_it, entered] = f.slots.try_emplace(static_cast<std::uint32_t>(slot_index));
  if (!entered) {
    reply(c, m.id, Status::invalid_request, "fence '" + m.name + "': " + me.name() + " already entered it");
    return;
  }
  FenceSlot& slot = slot_it->second;
  slot.conn = c.id;
  slot.request = m.id;
  f.bytes += m.blob.size();
  if (f.collect) slot.blob = std::move(m.blob);
  ++f.arrived;
  if (f.bytes > options.limits.max_fence_bytes) {
    fail_fence(f.name, Status::limit_exceeded,
               "fence '" + f.name + "' collected more than Limits::max_fence_bytes = " +
                   std::to_string(options.limits.max_fence_bytes) + " bytes");
    return;
  }
  if (m.timeout_ms > 0) {
    const TimePoint deadline = now + std::chrono::milliseconds(m.timeout_ms);
    if (deadline < f.deadline) {
      if (f.deadline != TimePoint::max()) fence_deadlines.erase({f.deadline, f.name});
      f.deadline = deadline;
      fence_deadlines.emplace(deadline, f.name);
    }
  }
  if (f.arrived == f.total) complete_fence(f);
}

void Engine::State::complete_fence(FenceState& f) {
  std::vector<FenceBlob> blobs;
  if (f.collect) {
    blobs.reserve(f.total);
    for (std::size_t i = 0; i < f.ranges.size(); ++i) {
      const NodeRange& r = f.ranges[i];
      for (std::uint32_t k = 0; k < r.count; ++k) {
        blobs.push_back(FenceBlob{r.node, r.first + k, std::move(f.slots.at(f.offsets[i] + k).blob)});
      }
    }
  }
  auto body = std::make_shared<const std::string>(wire::encode_fence_body(blobs));
  if (body->size() + 16 > options.limits.max_frame_bytes) {
    fail_fence(f.name, Status::limit_exceeded,
               "fence '" + f.name + "': its result would exceed Limits::max_frame_bytes");
    return;
  }
  for (const auto& [index, slot] : f.slots) {
    auto conn = conns.find(slot.conn);
    if (conn == conns.end() || conn->second.closed) continue;
    const std::string prefix = wire::encode_shared_reply_prefix(slot.request, body->size());
    transport.send_shared(slot.conn, prefix, body);
  }
  if (f.deadline != TimePoint::max()) fence_deadlines.erase({f.deadline, f.name});
  const std::string name = f.name;
  fences.erase(name);
}

void Engine::State::fail_fence(std::string name, Status status, const std::string& message) {
  auto it = fences.find(name);
  if (it == fences.end()) return;
  FenceState f = std::move(it->second);
  fences.erase(it);
  if (f.deadline != TimePoint::max()) fence_deadlines.erase({f.deadline, f.name});
  for (const auto& [index, slot] : f.slots) {
    auto conn = conns.find(slot.conn);
    if (conn != conns.end()) reply(conn->second, slot.request, status, message);
  }
}

void Engine::State::fail_fences_of(const Member& m) {
  const Identity& id = m.record.identity;
  std::vector<std::string> hit;
  for (const auto& [name, f] : fences) {
    if (f.slot_of(id.node, id.replica) >= 0) hit.push_back(name);
  }
  for (const auto& name : hit) {
    fail_fence(name, Status::member_failed,
               "fence '" + name + "' cannot complete: " + id.name() + " (attempt " +
                   std::to_string(id.attempt) + ") " + ended_how(m.record));
  }
}

void Engine::State::expire_fences(TimePoint now) {
  while (!fence_deadlines.empty() && fence_deadlines.begin()->first <= now) {
    const std::string name = fence_deadlines.begin()->second;
    fence_deadlines.erase(fence_deadlines.begin());
    auto it = fences.find(name);
    if (it == fences.end()) continue;
    FenceState& f = it->second;
    f.deadline = TimePoint::max();
    // The first 8 members that never entered (a walk of at most the
    // entrants + 8 slots), and how many more.
    std::string missing;
    std::size_t named = 0;
    for (std::size_t i = 0; i < f.ranges.size() && named < 8; ++i) {
      for (std::uint32_t k = 0; k < f.ranges[i].count && named < 8; ++k) {
        if (f.slots.count(f.offsets[i] + k)) continue;
        missing += (named ? ", " : "") + member_name(f.ranges[i].node, f.ranges[i].first + k);
        ++named;
      }
    }
    const std::size_t count = f.total - f.arrived;
    if (count > named) missing += " (+" + std::to_string(count - named) + " more)";
    fail_fence(name, Status::timeout,
               "fence '" + name + "' timed out waiting for " + missing + " to enter");
  }
}

}  // namespace slipway::rendezvous
