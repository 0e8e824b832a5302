// The rendezvous wire format: the messages exchanged between client and
// server, their encoder and their bounded decoder (docs/rendezvous.md has the
// byte layout).
//
// A frame is a little-endian u32 body length followed by the body; the body's
// first byte is the message type. Strings are a u32 length and the bytes;
// integers are little-endian and fixed-width; an optional string is a u8
// presence flag and, when 1, the string.
//
// Contract: encode() appends one whole frame to `out`. decode() parses one
// frame body (without the length prefix) and accepts it only when every
// length and count is within `limits`, every enum is known and no byte is
// left over; it never allocates more than the body's size justifies.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "slipway/rendezvous/sha256.hpp"
#include "slipway/rendezvous/types.hpp"

namespace slipway::rendezvous::wire {

inline constexpr std::uint16_t kProtocolVersion = 1;
inline constexpr std::size_t kFrameHeaderBytes = 4;

using Nonce = std::array<std::uint8_t, 32>;

enum class Type : std::uint8_t {
  challenge = 1,
  hello = 2,
  welcome = 3,
  heartbeat = 4,
  channel = 5,  // one member's frame on a connection that carries many
  closed = 6,   // inside a channel only: it is closed (either direction)
  put = 10,
  get = 11,
  wait_for = 12,
  cas = 13,
  add = 14,
  erase = 15,
  fence = 16,
  subscribe = 17,
  unsubscribe = 18,
  leave = 19,
  request_stop = 20,
  list_members = 21,
  declare = 22,
  reply = 64,
  event = 65,
};

enum class Role : std::uint8_t { member = 0, observer = 1 };

// Server -> client, first frame on every connection.
struct Challenge {
  std::uint16_t version = kProtocolVersion;
  Nonce server_nonce{};
  std::uint32_t heartbeat_interval_ms = 0;
  std::uint32_t miss_budget = 0;
  bool operator==(const Challenge&) const = default;
};

// Client -> server, answer to the challenge; joins when role == member.
struct Hello {
  std::uint16_t version = kProtocolVersion;
  Role role = Role::member;
  Identity identity;  // empty for observers
  Nonce client_nonce{};
  Digest mac{};
  bool operator==(const Hello&) const = default;
};

// Server -> client, answer to Hello. server_mac proves the server holds the
// secret too; generation is the member's node generation after the join.
struct Welcome {
  Status status = Status::ok;
  std::string message;
  Digest server_mac{};
  std::uint64_t generation = 0;
  bool operator==(const Welcome&) const = default;
};

struct Heartbeat {
  bool operator==(const Heartbeat&) const = default;
};

// One frame of one member on a connection that carries many (an agent's
// tasks): `body` is a whole frame body of its own (its type byte first, any
// type but channel), for channel `channel` (>= 1). A channel opens with a
// Hello inside it (MAC over the connection's server nonce and the channel
// number, see client_mac), is answered by a Welcome inside it, and from then
// on carries that member's requests, replies and events exactly as a
// connection of its own would. Channel 0 is the connection itself.
struct ChannelFrame {
  std::uint32_t channel = 0;
  std::string body;
  bool operator==(const ChannelFrame&) const = default;
};

// Inside a channel: server -> client, the server closed the channel (its
// member failed, was superseded, or the channel was refused after opening);
// client -> server, the client gave it up (its member fails as a dropped
// connection would, unless it left). Either side forgets the channel.
struct Closed {
  Status status = Status::connection_lost;
  std::string reason;
  bool operator==(const Closed&) const = default;
};

struct Put {
  std::uint32_t id = 0;
  Scope scope = Scope::program;
  std::string key;
  std::string value;
  bool operator==(const Put&) const = default;
};

struct Get {
  std::uint32_t id = 0;
  std::string key;
  bool operator==(const Get&) const = default;
};

struct WaitFor {
  std::uint32_t id = 0;
  std::string key;
  std::uint32_t timeout_ms = 0;
  bool operator==(const WaitFor&) const = default;
};

// Sets `desired` when the current value equals `expected` (nullopt: the key
// must be absent).
struct CompareAndSwap {
  std::uint32_t id = 0;
  Scope scope = Scope::program;
  std::string key;
  std::optional<std::string> expected;
  std::string desired;
  bool operator==(const CompareAndSwap&) const = default;
};

struct Add {
  std::uint32_t id = 0;
  Scope scope = Scope::program;
  std::string key;
  std::int64_t delta = 0;
  bool operator==(const Add&) const = default;
};

struct Erase {
  std::uint32_t id = 0;
  std::string key;
  bool operator==(const Erase&) const = default;
};

struct Fence {
  std::uint32_t id = 0;
  std::string name;
  MemberSet members;
  bool collect = true;
  std::string blob;
  std::uint32_t timeout_ms = 0;
  bool operator==(const Fence&) const = default;
};

// Adds (or removes) one event filter of this connection: `kinds` is a mask of
// EventKind; key_changed events match when the key starts with key_prefix.
struct Subscribe {
  std::uint32_t id = 0;
  std::uint8_t kinds = 0;
  std::string key_prefix;
  bool operator==(const Subscribe&) const = default;
};

struct Unsubscribe {
  std::uint32_t id = 0;
  std::uint8_t kinds = 0;
  std::string key_prefix;
  bool operator==(const Unsubscribe&) const = default;
};

struct Leave {
  std::uint32_t id = 0;
  std::int32_t exit_status = 0;
  bool operator==(const Leave&) const = default;
};

struct RequestStop {
  std::uint32_t id = 0;
  std::string reason;
  bool operator==(const RequestStop&) const = default;
};

struct ListMembers {
  std::uint32_t id = 0;
  bool operator==(const ListMembers&) const = default;
};

struct Declare {
  std::uint32_t id = 0;
  std::string node;
  std::uint32_t replicas = 0;
  bool operator==(const Declare&) const = default;
};

// Reply bodies, by request kind.
struct ValueBody {  // get, wait_for
  std::optional<std::string> value;
  bool operator==(const ValueBody&) const = default;
};
struct CasBody {
  bool swapped = false;
  std::optional<std::string> current;  // the value after the operation
  bool operator==(const CasBody&) const = default;
};
struct AddBody {
  std::int64_t value = 0;
  bool operator==(const AddBody&) const = default;
};
struct FenceBody {
  std::vector<FenceBlob> blobs;  // in member-set order; empty unless collect
  bool operator==(const FenceBody&) const = default;
};
struct MembersBody {
  std::vector<MemberRecord> members;
  bool stopping = false;
  std::string stop_reason;
  bool operator==(const MembersBody&) const = default;
};

using ReplyBody = std::variant<std::monostate, ValueBody, CasBody, AddBody, FenceBody, MembersBody>;

struct Reply {
  std::uint32_t id = 0;
  Status status = Status::ok;
  std::string message;  // what went wrong, for users; empty when ok
  ReplyBody body;
  bool operator==(const Reply&) const = default;
};

using Message = std::variant<Challenge, Hello, Welcome, Heartbeat, ChannelFrame, Closed, Put, Get, WaitFor,
                             CompareAndSwap, Add, Erase, Fence, Subscribe, Unsubscribe, Leave,
                             RequestStop, ListMembers, Declare, Reply, Event>;

// Appends one frame holding `message` to `out`. The per-type overloads avoid
// building a Message first.
void encode(const Message& message, std::string& out);
void encode(const Challenge& m, std::string& out);
void encode(const Hello& m, std::string& out);
void encode(const Welcome& m, std::string& out);
void encode(const Heartbeat& m, std::string& out);
void encode(const ChannelFrame& m, std::string& out);
void encode(const Closed& m, std::string& out);
void encode(const Put& m, std::string& out);
void encode(const Get& m, std::string& out);
void encode(const WaitFor& m, std::string& out);
void encode(const CompareAndSwap& m, std::string& out);
void encode(const Add& m, std::string& out);
void encode(const Erase& m, std::string& out);
void encode(const Fence& m, std::string& out);
void encode(const Subscribe& m, std::string& out);
void encode(const Unsubscribe& m, std::string& out);
void encode(const Leave& m, std::string& out);
void encode(const RequestStop& m, std::string& out);
void encode(const ListMembers& m, std::string& out);
void encode(const Declare& m, std::string& out);
void encode(const Reply& m, std::string& out);
void encode(const Event& m, std::string& out);

// A reply to get/wait_for carrying `value` (nullptr: absent) without copying
// it into a Reply first.
void encode_value_reply(std::uint32_t id, Status status, const std::string* value,
                        std::string& out);

// Appends to `out` each whole frame of `frames` (one or more, as encode()
// writes them) wrapped as a ChannelFrame for `channel`, without building a
// ChannelFrame first.
void wrap_in_channel(std::uint32_t channel, std::string_view frames, std::string& out);
// A frame prefix (as encode_shared_reply_prefix returns) rewritten so that
// the frame it starts goes inside `channel`.
std::string channel_prefix(std::uint32_t channel, std::string_view prefix);
// Bytes a channel adds to a frame: type byte and channel number.
inline constexpr std::size_t kChannelOverheadBytes = 5;
// Splits a ChannelFrame body (type byte first) into its channel and inner
// body without copying; false when it is too short or names channel 0 or
// nests a channel.
bool split_channel(std::span<const std::uint8_t> body, std::uint32_t& channel,
                   std::span<const std::uint8_t>& inner);

// Decodes one frame body. On failure returns false and sets `error` to a
// short description (which field, which bound).
bool decode(std::span<const std::uint8_t> body, const Limits& limits, Message& out,
            std::string& error);

// A reply whose body is shared between many receivers (a fence's result): the
// per-receiver prefix carries the frame length, request id and status; the
// shared part is encode_fence_body()'s output. Together they form one frame.
std::string encode_fence_body(const std::vector<FenceBlob>& blobs);
std::string encode_shared_reply_prefix(std::uint32_t id, std::size_t shared_body_bytes);

// The byte strings the two MACs of the handshake cover. A Hello opening a
// channel (channel >= 1) covers the channel number too, so that it cannot be
// moved to another channel; channel 0 (the connection's own Hello) covers
// the same bytes as before channels existed.
Digest client_mac(const HmacKey& key, const Nonce& server_nonce, const Hello& hello,
                  std::uint32_t channel = 0);
Digest server_mac(const HmacKey& key, const Nonce& server_nonce, const Nonce& client_nonce);

}  // namespace slipway::rendezvous::wire
