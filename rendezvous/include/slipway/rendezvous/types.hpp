// Vocabulary of the rendezvous control plane: who a member is, what state it
// is in, key scopes, member sets for fences, events, status codes and the
// bounds every length and count read from the wire is held to.
//
// Contract: plain value types with no I/O; shared by the wire codec, the
// engine, the server and the client.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slipway::rendezvous {

// Outcome of a request. Values are part of the wire format: append only.
enum class Status : std::uint8_t {
  ok = 0,
  not_found = 1,        // get/erase of a key that does not exist
  timeout = 2,          // wait_for or fence ran out of time
  invalid_request = 3,  // malformed or contradictory request (message says what)
  not_integer = 4,      // add on a key whose value is not a decimal integer
  limit_exceeded = 5,   // a configured bound would be passed (message names it)
  not_member = 6,       // a member-only operation from an observer
  duplicate_member = 7, // join as node.replica while that attempt is alive
  stale_attempt = 8,    // join with an attempt older than the one recorded
  member_failed = 9,    // a fence member failed or left (message names it)
  fence_mismatch = 10,  // participants disagree on a fence's member set
  auth_failed = 11,     // wrong or missing secret
  connection_lost = 12, // client side: the connection to the server dropped
  protocol_error = 13,  // client side: the server sent something malformed
  stopping = 14,        // the server is shutting down
};

std::string_view to_string(Status status);

// Lifetime of a key. Keys live in one flat, program-wide namespace; the scope
// only says when the server withdraws the key on its own:
//   program: never (until erased or the server stops);
//   node:    when the putting member's node has no live member left;
//   task:    when the putting member fails or leaves.
enum class Scope : std::uint8_t { program = 0, node = 1, task = 2 };

std::string_view to_string(Scope scope);

// Who a member is. (node, replica) names the task; attempt counts its
// resubmissions (0 first). host and pid are reported by the task itself.
struct Identity {
  std::string node;
  std::uint32_t replica = 0;
  std::uint32_t attempt = 0;
  std::string host;
  std::int64_t pid = 0;

  // "node.replica", the name users see in messages.
  std::string name() const;
  bool operator==(const Identity&) const = default;
};

enum class MemberState : std::uint8_t { alive = 0, left = 1, failed = 2 };

std::string_view to_string(MemberState state);

// The server's latest record of one (node, replica).
struct MemberRecord {
  Identity identity;
  MemberState state = MemberState::alive;
  std::uint64_t generation = 0;    // the node's generation after this change
  std::int64_t joined_unix_ms = 0; // wall clock at join
  std::int64_t ended_unix_ms = 0;  // wall clock at leave/failure, 0 while alive
  std::int32_t exit_status = 0;    // reported on leave
  std::string reason;              // why it failed (empty otherwise)
  bool operator==(const MemberRecord&) const = default;
};

// A run of replicas of one node. count == 0 means "every declared replica of
// the node" (see Server::declare / Client::declare).
struct NodeRange {
  std::string node;
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  bool operator==(const NodeRange&) const = default;
};

// The members taking part in a fence: the whole program (every declared
// node with its declared replicas), or explicit ranges.
struct MemberSet {
  bool whole_program = false;
  std::vector<NodeRange> ranges;

  static MemberSet program();
  static MemberSet node(std::string node, std::uint32_t count = 0);
  static MemberSet of(std::vector<NodeRange> ranges);
  bool operator==(const MemberSet&) const = default;
};

// Event kinds, usable as a bit mask for subscriptions.
enum class EventKind : std::uint8_t {
  member_joined = 1,
  member_failed = 2,
  member_left = 4,
  key_changed = 8,
  program_stopping = 16,
};
inline constexpr std::uint8_t kAllEvents = 31;
inline constexpr std::uint8_t kMemberEvents = 7;

std::string_view to_string(EventKind kind);

// One pushed event. member is set for member events; key/value for key
// changes (value empty optional = the key was erased or withdrawn); reason for
// program_stopping.
struct Event {
  EventKind kind = EventKind::member_joined;
  MemberRecord member;
  std::string key;
  std::optional<std::string> value;
  std::string reason;
  bool operator==(const Event&) const = default;
};

// One member's contribution to a completed fence.
struct FenceBlob {
  std::string node;
  std::uint32_t replica = 0;
  std::string blob;
  bool operator==(const FenceBlob&) const = default;
};

// Bounds. Every length and count decoded from the wire is checked against
// these before anything is allocated; the server also enforces the totals.
struct Limits {
  std::uint32_t max_frame_bytes = 72u << 20;               // one frame, any kind
  std::uint32_t max_unauthenticated_frame_bytes = 2048;    // before Hello is verified
  std::uint32_t max_key_bytes = 1024;
  std::uint32_t max_value_bytes = 4u << 20;
  std::uint32_t max_name_bytes = 255;      // node, host, fence names, prefixes
  std::uint32_t max_reason_bytes = 4096;   // stop reasons, error messages
  std::uint32_t max_blob_bytes = 4u << 20; // one member's fence blob
  std::uint64_t max_fence_bytes = 64u << 20; // all blobs of one fence
  std::uint32_t max_ranges = 1024;         // ranges in one member set
  std::uint32_t max_members = 1u << 20;    // member records kept (departed ones are recycled)
  std::uint32_t max_connections = 1u << 17;
  // Members one connection may carry in channels at once (an agent's tasks;
  // docs/rendezvous.md, "Many members on one connection").
  std::uint32_t max_channels_per_connection = 1024;
  // Connections that have not authenticated yet: at most this many at once
  // (the server lowers it to a quarter of its descriptor limit), and at most
  // max_unauthenticated_per_address of them from one peer address; past
  // either, the oldest of them is closed to admit the new one.
  std::uint32_t max_unauthenticated = 4096;
  std::uint32_t max_unauthenticated_per_address = 256;
  std::uint64_t max_keys = 1u << 22;
  std::uint64_t max_kv_bytes = 1ull << 30;
  std::uint32_t max_waits_per_connection = 4096;
  std::uint32_t max_subscriptions_per_connection = 64;
  std::uint32_t max_fences = 4096;         // fences pending at once
  std::uint64_t max_outbound_bytes = 256u << 20; // queued to one slow reader (then dropped)
  // Output queued to one connection at which its requests wait (the server
  // stops reading it) until the peer has taken it all.
  std::uint64_t backlog_bytes = 4u << 20;
  std::uint32_t max_timeout_ms = 24u * 3600u * 1000u;
  std::uint32_t auth_timeout_ms = 5000;     // connect to valid Hello, whatever the heartbeat
};

}  // namespace slipway::rendezvous
