// Names of the rendezvous enums and the MemberSet factories.
#include "slipway/rendezvous/types.hpp"

namespace slipway::rendezvous {

std::string_view to_string(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::not_found: return "not found";
    case Status::timeout: return "timed out";
    case Status::invalid_request: return "invalid request";
    case Status::not_integer: return "not an integer";
    case Status::limit_exceeded: return "limit exceeded";
    case Status::not_member: return "not a member";
    case Status::duplicate_member: return "duplicate member";
    case Status::stale_attempt: return "stale attempt";
    case Status::member_failed: return "member failed";
    case Status::fence_mismatch: return "fence mismatch";
    case Status::auth_failed: return "authentication failed";
    case Status::connection_lost: return "connection lost";
    case Status::protocol_error: return "protocol error";
    case Status::stopping: return "server stopping";
  }
  return "unknown status";
}

std::string_view to_string(Scope scope) {
  switch (scope) {
    case Scope::program: return "program";
    case Scope::node: return "node";
    case Scope::task: return "task";
  }
  return "unknown scope";
}

std::string_view to_string(MemberState state) {
  switch (state) {
    case MemberState::alive: return "alive";
    case MemberState::left: return "left";
    case MemberState::failed: return "failed";
  }
  return "unknown state";
}

std::string_view to_string(EventKind kind) {
  switch (kind) {
    case EventKind::member_joined: return "member joined";
    case EventKind::member_failed: return "member failed";
    case EventKind::member_left: return "member left";
    case EventKind::key_changed: return "key changed";
    case EventKind::program_stopping: return "program stopping";
  }
  return "unknown event";
}

std::string Identity::name() const { return node + "." + std::to_string(replica); }

MemberSet MemberSet::program() {
  MemberSet set;
  set.whole_program = true;
  return set;
}

MemberSet MemberSet::node(std::string node, std::uint32_t count) {
  MemberSet set;
  set.ranges.push_back(NodeRange{std::move(node), 0, count});
  return set;
}

MemberSet MemberSet::of(std::vector<NodeRange> ranges) {
  MemberSet set;
  set.ranges = std::move(ranges);
  return set;
}

}  // namespace slipway::rendezvous
