// Encoder of the rendezvous wire format (layout in docs/rendezvous.md).
#include <type_traits>

#include "slipway/rendezvous/wire.hpp"
#include "wire_io.hpp"

namespace slipway::rendezvous::wire {
namespace {

using detail::Writer;

// Index of each reply body in ReplyBody: the body-kind byte on the wire.
template <class T, std::size_t I = 0>
constexpr std::uint8_t body_index() {
  if constexpr (std::is_same_v<std::variant_alternative_t<I, ReplyBody>, T>) {
    return static_cast<std::uint8_t>(I);
  } else {
    return body_index<T, I + 1>();
  }
}

void put_type(Writer& w, Type t) { w.u8(static_cast<std::uint8_t>(t)); }

void put_identity(Writer& w, const Identity& id) {
  w.str(id.node);
  w.u32(id.replica);
  w.u32(id.attempt);
  w.str(id.host);
  w.i64(id.pid);
}

void put_record(Writer& w, const MemberRecord& r) {
  put_identity(w, r.identity);
  w.u8(static_cast<std::uint8_t>(r.state));
  w.u64(r.generation);
  w.i64(r.joined_unix_ms);
  w.i64(r.ended_unix_ms);
  w.i32(r.exit_status);
  w.str(r.reason);
}

void put_member_set(Writer& w, const MemberSet& set) {
  w.boolean(set.whole_program);
  w.u32(static_cast<std::uint32_t>(set.ranges.size()));
  for (const auto& r : set.ranges) {
    w.str(r.node);
    w.u32(r.first);
    w.u32(r.count);
  }
}

void put_blobs(Writer& w, const std::vector<FenceBlob>& blobs) {
  w.u32(static_cast<std::uint32_t>(blobs.size()));
  for (const auto& b : blobs) {
    w.str(b.node);
    w.u32(b.replica);
    w.str(b.blob);
  }
}

void put_body(Writer& w, const ReplyBody& body) {
  w.u8(static_cast<std::uint8_t>(body.index()));
  std::visit(
      [&w](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, ValueBody>) {
          w.opt(b.value);
        } else if constexpr (std::is_same_v<T, CasBody>) {
          w.boolean(b.swapped);
          w.opt(b.current);
        } else if constexpr (std::is_same_v<T, AddBody>) {
          w.i64(b.value);
        } else if constexpr (std::is_same_v<T, FenceBody>) {
          put_blobs(w, b.blobs);
        } else if constexpr (std::is_same_v<T, MembersBody>) {
          w.u32(static_cast<std::uint32_t>(b.members.size()));
          for (const auto& m : b.members) put_record(w, m);
          w.boolean(b.stopping);
          w.str(b.stop_reason);
        }
      },
      body);
}

void put_fields(Writer& w, const Challenge& m) {
  put_type(w, Type::challenge);
  w.u16(m.version);
  w.raw(m.server_nonce);
  w.u32(m.heartbeat_interval_ms);
  w.u32(m.miss_budget);
}
void put_fields(Writer& w, const Hello& m) {
  put_type(w, Type::hello);
  w.u16(m.version);
  w.u8(static_cast<std::uint8_t>(m.role));
  put_identity(w, m.identity);
  w.raw(m.client_nonce);
  w.raw(m.mac);
}
void put_fields(Writer& w, const Welcome& m) {
  put_type(w, Type::welcome);
  w.u8(static_cast<std::uint8_t>(m.status));
  w.str(m.message);
  w.raw(m.server_mac);
  w.u64(m.generation);
}
void put_fields(Writer& w, const Heartbeat&) { put_type(w, Type::heartbeat); }
void put_fields(Writer& w, const ChannelFrame& m) {
  put_type(w, Type::channel);
  w.u32(m.channel);
  w.raw(std::span(reinterpret_cast<const std::uint8_t*>(m.body.data()), m.body.size()));
}
void put_fields(Writer& w, const Closed& m) {
  put_type(w, Type::closed);
  w.u8(static_cast<std::uint8_t>(m.status));
  w.str(m.reason);
}
void put_fields(Writer& w, const Put& m) {
  put_type(w, Type::put);
  w.u32(m.id);
  w.u8(static_cast<std::uint8_t>(m.scope));
  w.str(m.key);
  w.str(m.value);
}
void put_fields(Writer& w, const Get& m) {
  put_type(w, Type::get);
  w.u32(m.id);
  w.str(m.key);
}
void put_fields(Writer& w, const WaitFor& m) {
  put_type(w, Type::wait_for);
  w.u32(m.id);
  w.str(m.key);
  w.u32(m.timeout_ms);
}
void put_fields(Writer& w, const CompareAndSwap& m) {
  put_type(w, Type::cas);
  w.u32(m.id);
  w.u8(static_cast<std::uint8_t>(m.scope));
  w.str(m.key);
  w.opt(m.expected);
  w.str(m.desired);
}
void put_fields(Writer& w, const Add& m) {
  put_type(w, Type::add);
  w.u32(m.id);
  w.u8(static_cast<std::uint8_t>(m.scope));
  w.str(m.key);
  w.i64(m.delta);
}
void put_fields(Writer& w, const Erase& m) {
  put_type(w, Type::erase);
  w.u32(m.id);
  w.str(m.key);
}
void put_fields(Writer& w, const Fence& m) {
  put_type(w, Type::fence);
  w.u32(m.id);
  w.str(m.name);
  put_member_set(w, m.members);
  w.boolean(m.collect);
  w.str(m.blob);
  w.u32(m.timeout_ms);
}
void put_fields(Writer& w, const Subscribe& m) {
  put_type(w, Type::subscribe);
  w.u32(m.id);
  w.u8(m.kinds);
  w.str(m.key_prefix);
}
void put_fields(Writer& w, const Unsubscribe& m) {
  put_type(w, Type::unsubscribe);
  w.u32(m.id);
  w.u8(m.kinds);
  w.str(m.key_prefix);
}
void put_fields(Writer& w, const Leave& m) {
  put_type(w, Type::leave);
  w.u32(m.id);
  w.i32(m.exit_status);
}
void put_fields(Writer& w, const RequestStop& m) {
  put_type(w, Type::request_stop);
  w.u32(m.id);
  w.str(m.reason);
}
void put_fields(Writer& w, const ListMembers& m) {
  put_type(w, Type::list_members);
  w.u32(m.id);
}
void put_fields(Writer& w, const Declare& m) {
  put_type(w, Type::declare);
  w.u32(m.id);
  w.str(m.node);
  w.u32(m.replicas);
}
void put_fields(Writer& w, const Reply& m) {
  put_type(w, Type::reply);
  w.u32(m.id);
  w.u8(static_cast<std::uint8_t>(m.status));
  w.str(m.message);
  put_body(w, m.body);
}
void put_fields(Writer& w, const Event& m) {
  put_type(w, Type::event);
  w.u8(static_cast<std::uint8_t>(m.kind));
  switch (m.kind) {
    case EventKind::member_joined:
    case EventKind::member_failed:
    case EventKind::member_left:
      put_record(w, m.member);
      break;
    case EventKind::key_changed:
      w.str(m.key);
      w.opt(m.value);
      break;
    case EventKind::program_stopping:
      w.str(m.reason);
      break;
  }
}

}  // namespace

void encode(const Message& message, std::string& out) {
  std::visit([&out](const auto& m) { encode(m, out); }, message);
}

#define SLIPWAY_WIRE_ENCODE(T)                  \
  void encode(const T& m, std::string& out) {   \
    Writer w(out, true);                        \
    put_fields(w, m);                           \
    w.finish();                                 \
  }
SLIPWAY_WIRE_ENCODE(Challenge)
SLIPWAY_WIRE_ENCODE(Hello)
SLIPWAY_WIRE_ENCODE(Welcome)
SLIPWAY_WIRE_ENCODE(Heartbeat)
SLIPWAY_WIRE_ENCODE(ChannelFrame)
SLIPWAY_WIRE_ENCODE(Closed)
SLIPWAY_WIRE_ENCODE(Put)
SLIPWAY_WIRE_ENCODE(Get)
SLIPWAY_WIRE_ENCODE(WaitFor)
SLIPWAY_WIRE_ENCODE(CompareAndSwap)
SLIPWAY_WIRE_ENCODE(Add)
SLIPWAY_WIRE_ENCODE(Erase)
SLIPWAY_WIRE_ENCODE(Fence)
SLIPWAY_WIRE_ENCODE(Subscribe)
SLIPWAY_WIRE_ENCODE(Unsubscribe)
SLIPWAY_WIRE_ENCODE(Leave)
SLIPWAY_WIRE_ENCODE(RequestStop)
SLIPWAY_WIRE_ENCODE(ListMembers)
SLIPWAY_WIRE_ENCODE(Declare)
SLIPWAY_WIRE_ENCODE(Reply)
SLIPWAY_WIRE_ENCODE(Event)
#undef SLIPWAY_WIRE_ENCODE

void encode_value_reply(std::uint32_t id, Status status, const std::string* value,
                        std::string& out) {
  Writer w(out, true);
  put_type(w, Type::reply);
  w.u32(id);
  w.u8(static_cast<std::uint8_t>(status));
  w.str("");
  w.u8(body_index<ValueBody>());
  w.boolean(value != nullptr);
  if (value) w.str(*value);
  w.finish();
}

void wrap_in_channel(std::uint32_t channel, std::string_view frames, std::string& out) {
  std::size_t pos = 0;
  while (pos + kFrameHeaderBytes <= frames.size()) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(frames.data() + pos);
    const std::uint32_t len = std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) |
                              (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24);
    Writer w(out, false);
    w.u32(static_cast<std::uint32_t>(len + kChannelOverheadBytes));
    put_type(w, Type::channel);
    w.u32(channel);
    out.append(frames.substr(pos + kFrameHeaderBytes, len));
    pos += kFrameHeaderBytes + len;
  }
}

std::string channel_prefix(std::uint32_t channel, std::string_view prefix) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(prefix.data());
  const std::uint32_t len = std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) |
                            (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24);
  std::string out;
  out.reserve(prefix.size() + kChannelOverheadBytes);
  Writer w(out, false);
  w.u32(static_cast<std::uint32_t>(len + kChannelOverheadBytes));
  put_type(w, Type::channel);
  w.u32(channel);
  out.append(prefix.substr(kFrameHeaderBytes));
  return out;
}

std::string encode_fence_body(const std::vector<FenceBlob>& blobs) {
  std::string out;
  std::size_t size = 4;
  for (const auto& b : blobs) size += 12 + b.node.size() + b.blob.size();
  out.reserve(size);
  Writer w(out, false);
  put_blobs(w, blobs);
  return out;
}

std::string encode_shared_reply_prefix(std::uint32_t id, std::size_t shared_body_bytes) {
  std::string out;
  Writer w(out, false);
  const std::size_t prefix_body = 1 + 4 + 1 + 4 + 1;  // type, id, status, empty message, body kind
  w.u32(static_cast<std::uint32_t>(prefix_body + shared_body_bytes));
  put_type(w, Type::reply);
  w.u32(id);
  w.u8(static_cast<std::uint8_t>(Status::ok));
  w.str("");
  w.u8(body_index<FenceBody>());
  return out;
}

}  // namespace slipway::rendezvous::wire
