// Bounded decoder of the rendezvous wire format: every length and count is
// checked against Limits and against the bytes left before anything is
// allocated; unknown enum values and trailing bytes reject the frame.
#include "slipway/rendezvous/wire.hpp"
#include "wire_io.hpp"

namespace slipway::rendezvous::wire {
namespace {

using detail::Reader;

constexpr std::size_t kMinIdentityBytes = 4 + 4 + 4 + 4 + 8;
constexpr std::size_t kMinRecordBytes = kMinIdentityBytes + 1 + 8 + 8 + 8 + 4 + 4;
constexpr std::size_t kMinRangeBytes = 4 + 4 + 4;
constexpr std::size_t kMinBlobBytes = 4 + 4 + 4;

Scope get_scope(Reader& r) {
  const std::uint8_t v = r.u8();
  if (v > static_cast<std::uint8_t>(Scope::task)) r.fail("unknown scope " + std::to_string(v));
  return static_cast<Scope>(v);
}

Status get_status(Reader& r) {
  const std::uint8_t v = r.u8();
  if (v > static_cast<std::uint8_t>(Status::stopping)) r.fail("unknown status " + std::to_string(v));
  return static_cast<Status>(v);
}

std::uint8_t get_kinds(Reader& r) {
  const std::uint8_t v = r.u8();
  if (v == 0 || (v & ~kAllEvents) != 0) r.fail("bad event mask " + std::to_string(v));
  return v;
}

Identity get_identity(Reader& r, const Limits& l) {
  Identity id;
  id.node = r.str(l.max_name_bytes, "node");
  id.replica = r.u32();
  id.attempt = r.u32();
  id.host = r.str(l.max_name_bytes, "host");
  id.pid = r.i64();
  return id;
}

MemberRecord get_record(Reader& r, const Limits& l) {
  MemberRecord m;
  m.identity = get_identity(r, l);
  const std::uint8_t state = r.u8();
  if (state > static_cast<std::uint8_t>(MemberState::failed)) r.fail("unknown member state");
  m.state = static_cast<MemberState>(state);
  m.generation = r.u64();
  m.joined_unix_ms = r.i64();
  m.ended_unix_ms = r.i64();
  m.exit_status = r.i32();
  m.reason = r.str(l.max_reason_bytes, "reason");
  return m;
}

MemberSet get_member_set(Reader& r, const Limits& l) {
  MemberSet set;
  set.whole_program = r.boolean("whole_program");
  const std::uint32_t n = r.count(l.max_ranges, kMinRangeBytes, "ranges");
  set.ranges.reserve(n);
  for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
    NodeRange range;
    range.node = r.str(l.max_name_bytes, "range node");
    range.first = r.u32();
    range.count = r.u32();
    set.ranges.push_back(std::move(range));
  }
  return set;
}

ReplyBody get_body(Reader& r, const Limits& l) {
  const std::uint8_t kind = r.u8();
  switch (kind) {
    case 0:
      return std::monostate{};
    case 1:
      return ValueBody{r.opt(l.max_value_bytes, "value")};
    case 2: {
      CasBody b;
      b.swapped = r.boolean("swapped");
      b.current = r.opt(l.max_value_bytes, "current");
      return b;
    }
    case 3:
      return AddBody{r.i64()};
    case 4: {
      FenceBody b;
      const std::uint32_t n = r.count(l.max_members, kMinBlobBytes, "blobs");
      b.blobs.reserve(n);
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
        FenceBlob blob;
        blob.node = r.str(l.max_name_bytes, "blob node");
        blob.replica = r.u32();
        blob.blob = r.str(l.max_blob_bytes, "blob");
        b.blobs.push_back(std::move(blob));
      }
      return b;
    }
    case 5: {
      MembersBody b;
      const std::uint32_t n = r.count(l.max_members, kMinRecordBytes, "members");
      b.members.reserve(n);
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) b.members.push_back(get_record(r, l));
      b.stopping = r.boolean("stopping");
      b.stop_reason = r.str(l.max_reason_bytes, "stop reason");
      return b;
    }
    default:
      r.fail("unknown reply body " + std::to_string(kind));
      return std::monostate{};
  }
}

Message get_message(Reader& r, const Limits& l) {
  const std::uint8_t type = r.u8();
  switch (static_cast<Type>(type)) {
    case Type::challenge: {
      Challenge m;
      m.version = r.u16();
      r.raw(m.server_nonce, "server nonce");
      m.heartbeat_interval_ms = r.u32();
      m.miss_budget = r.u32();
      return m;
    }
    case Type::hello: {
      Hello m;
      m.version = r.u16();
      const std::uint8_t role = r.u8();
      if (role > static_cast<std::uint8_t>(Role::observer)) r.fail("unknown role");
      m.role = static_cast<Role>(role);
      m.identity = get_identity(r, l);
      r.raw(m.client_nonce, "client nonce");
      r.raw(m.mac, "mac");
      return m;
    }
    case Type::welcome: {
      Welcome m;
      m.status = get_status(r);
      m.message = r.str(l.max_reason_bytes, "message");
      r.raw(m.server_mac, "server mac");
      m.generation = r.u64();
      return m;
    }
    case Type::heartbeat:
      return Heartbeat{};
    case Type::channel: {
      ChannelFrame m;
      m.channel = r.u32();
      if (m.channel == 0) r.fail("channel 0 is the connection itself");
      const std::size_t n = r.remaining();
      if (n == 0) r.fail("empty channel frame");
      if (!r.ok()) return m;
      m.body = r.str_of(n);
      if (static_cast<Type>(static_cast<std::uint8_t>(m.body[0])) == Type::channel) {
        r.fail("a channel frame inside a channel frame");
      }
      return m;
    }
    case Type::closed: {
      Closed m;
      m.status = get_status(r);
      m.reason = r.str(l.max_reason_bytes, "reason");
      return m;
    }
    // Keys, values and blobs of requests are bounded by the frame here; the
    // server answers one above its own bound with limit_exceeded.
    case Type::put: {
      Put m;
      m.id = r.u32();
      m.scope = get_scope(r);
      m.key = r.str(l.max_frame_bytes, "key");
      m.value = r.str(l.max_frame_bytes, "value");
      return m;
    }
    case Type::get: {
      Get m;
      m.id = r.u32();
      m.key = r.str(l.max_frame_bytes, "key");
      return m;
    }
    case Type::wait_for: {
      WaitFor m;
      m.id = r.u32();
      m.key = r.str(l.max_frame_bytes, "key");
      m.timeout_ms = r.u32();
      return m;
    }
    case Type::cas: {
      CompareAndSwap m;
      m.id = r.u32();
      m.scope = get_scope(r);
      m.key = r.str(l.max_frame_bytes, "key");
      m.expected = r.opt(l.max_frame_bytes, "expected");
      m.desired = r.str(l.max_frame_bytes, "desired");
      return m;
    }
    case Type::add: {
      Add m;
      m.id = r.u32();
      m.scope = get_scope(r);
      m.key = r.str(l.max_frame_bytes, "key");
      m.delta = r.i64();
      return m;
    }
    case Type::erase: {
      Erase m;
      m.id = r.u32();
      m.key = r.str(l.max_frame_bytes, "key");
      return m;
    }
    case Type::fence: {
      Fence m;
      m.id = r.u32();
      m.name = r.str(l.max_name_bytes, "fence name");
      m.members = get_member_set(r, l);
      m.collect = r.boolean("collect");
      m.blob = r.str(l.max_frame_bytes, "blob");
      m.timeout_ms = r.u32();
      return m;
    }
    case Type::subscribe: {
      Subscribe m;
      m.id = r.u32();
      m.kinds = get_kinds(r);
      m.key_prefix = r.str(l.max_frame_bytes, "key prefix");
      return m;
    }
    case Type::unsubscribe: {
      Unsubscribe m;
      m.id = r.u32();
      m.kinds = get_kinds(r);
      m.key_prefix = r.str(l.max_frame_bytes, "key prefix");
      return m;
    }
    case Type::leave: {
      Leave m;
      m.id = r.u32();
      m.exit_status = r.i32();
      return m;
    }
    case Type::request_stop: {
      RequestStop m;
      m.id = r.u32();
      m.reason = r.str(l.max_reason_bytes, "reason");
      return m;
    }
    case Type::list_members:
      return ListMembers{r.u32()};
    case Type::declare: {
      Declare m;
      m.id = r.u32();
      m.node = r.str(l.max_name_bytes, "node");
      m.replicas = r.u32();
      return m;
    }
    case Type::reply: {
      Reply m;
      m.id = r.u32();
      m.status = get_status(r);
      m.message = r.str(l.max_reason_bytes, "message");
      m.body = get_body(r, l);
      return m;
    }
    case Type::event: {
      Event m;
      const std::uint8_t kind = r.u8();
      switch (kind) {
        case static_cast<std::uint8_t>(EventKind::member_joined):
        case static_cast<std::uint8_t>(EventKind::member_failed):
        case static_cast<std::uint8_t>(EventKind::member_left):
          m.kind = static_cast<EventKind>(kind);
          m.member = get_record(r, l);
          break;
        case static_cast<std::uint8_t>(EventKind::key_changed):
          m.kind = EventKind::key_changed;
          m.key = r.str(l.max_key_bytes, "key");
          m.value = r.opt(l.max_value_bytes, "value");
          break;
        case static_cast<std::uint8_t>(EventKind::program_stopping):
          m.kind = EventKind::program_stopping;
          m.reason = r.str(l.max_reason_bytes, "reason");
          break;
        default:
          r.fail("unknown event kind " + std::to_string(kind));
      }
      return m;
    }
  }
  r.fail("unknown message type " + std::to_string(type));
  return Heartbeat{};
}

}  // namespace

bool split_channel(std::span<const std::uint8_t> body, std::uint32_t& channel,
                   std::span<const std::uint8_t>& inner) {
  if (body.size() < kChannelOverheadBytes + 1 || body[0] != static_cast<std::uint8_t>(Type::channel)) {
    return false;
  }
  channel = std::uint32_t{body[1]} | (std::uint32_t{body[2]} << 8) | (std::uint32_t{body[3]} << 16) |
            (std::uint32_t{body[4]} << 24);
  inner = body.subspan(kChannelOverheadBytes);
  return channel != 0 && inner[0] != static_cast<std::uint8_t>(Type::channel);
}

bool decode(std::span<const std::uint8_t> body, const Limits& limits, Message& out,
            std::string& error) {
  Reader r(body);
  Message m = get_message(r, limits);
  if (r.ok() && r.remaining() != 0) r.fail(std::to_string(r.remaining()) + " trailing bytes");
  if (!r.ok()) {
    error = r.error();
    return false;
  }
  out = std::move(m);
  return true;
}

}  // namespace slipway::rendezvous::wire
