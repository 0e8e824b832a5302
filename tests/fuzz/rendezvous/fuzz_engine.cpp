// libFuzzer target for the protocol engine: the input is a script of
// connections, handshakes, well-formed and arbitrary frames, disconnections,
// clock advances, launcher calls and backpressure (a transport reporting
// connections backlogged, then resuming them). Checked on every input: no
// crash or undefined behaviour (ASan/UBSan), nothing is sent to a connection
// after the engine closed it, and the engine's counters stay consistent
// (member records recycled within max_members, unauthenticated counts).
#include <spdlog/spdlog.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "slipway/rendezvous/engine.hpp"
#include "slipway/rendezvous/wire.hpp"

using namespace slipway::rendezvous;

namespace {

constexpr const char* kToken = "fuzz-token";

class CheckingTransport : public Transport {
 public:
  void send(ConnId conn, std::string_view) override { check(conn); }
  void send_shared(ConnId conn, std::string_view, std::shared_ptr<const std::string>) override { check(conn); }
  void close(ConnId conn) override { closed.insert(conn); }
  bool backlogged(ConnId conn) override { return held.count(conn) != 0; }
  void check(ConnId conn) const {
    if (closed.count(conn)) std::abort();  // a send after close
  }
  std::set<ConnId> closed;
  std::set<ConnId> held;  // reported backlogged: not fed until resumed
};

struct Script {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t pos = 0;
  bool more() const { return pos < size; }
  std::uint8_t next() { return pos < size ? data[pos++] : 0; }
};

wire::Message request(Script& s, std::uint32_t id) {
  const std::uint8_t t = s.next();
  const std::string key = std::string("k") + static_cast<char>('a' + s.next() % 4);
  const auto scope = static_cast<Scope>(s.next() % 3);
  const std::uint32_t small = s.next() % 5;
  switch (t % 13) {
    case 0: return wire::Put{id, scope, key, std::string(small, 'v')};
    case 1: return wire::Get{id, key};
    case 2: return wire::WaitFor{id, key, small * 100};
    case 3: return wire::CompareAndSwap{id, scope, key, small ? std::optional<std::string>("v") : std::nullopt, "w"};
    case 4: return wire::Add{id, scope, key, static_cast<std::int64_t>(small) - 2};
    case 5: return wire::Erase{id, key};
    case 6: {
      MemberSet set = small == 0 ? MemberSet::program()
                      : small == 4  ? MemberSet::of({{"n", 0, 1u << 20}})
                                    : MemberSet::node("n", small);
      return wire::Fence{id, "f" + std::to_string(s.next() % 2), set, (s.next() & 1) != 0, "b", (small + 1) * 100};
    }
    case 7: return wire::Subscribe{id, static_cast<std::uint8_t>(1 + s.next() % kAllEvents), "k"};
    case 8: return wire::Unsubscribe{id, static_cast<std::uint8_t>(1 + s.next() % kAllEvents), "k"};
    case 9: return wire::Leave{id, static_cast<std::int32_t>(small)};
    case 10: return wire::RequestStop{id, "r"};
    case 11: return wire::ListMembers{id};
    default: return wire::Declare{id, "n", small};
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  CheckingTransport transport;
  EngineOptions o;
  o.token = kToken;
  o.heartbeat_interval = std::chrono::milliseconds(100);
  o.miss_budget = 3;
  o.limits.max_waits_per_connection = 8;
  o.limits.max_subscriptions_per_connection = 4;
  o.limits.max_fences = 4;
  o.limits.auth_timeout_ms = 1000;
  o.limits.max_members = 6;
  o.limits.max_unauthenticated = 3;
  o.limits.max_unauthenticated_per_address = 2;
  o.limits.max_channels_per_connection = 2;
  o.make_nonce = [] { return wire::Nonce{}; };
  o.wall_clock_ms = [] { return std::int64_t{1}; };
  Engine engine(o, transport);
  const HmacKey key(kToken);
  TimePoint now = TimePoint{} + std::chrono::hours(1);
  std::set<ConnId> open;
  std::uint32_t next_id = 1;
  ConnId next_conn = 1;
  std::map<std::uint32_t, ConnId> slot_conn;  // fuzz slot -> current connection id

  Script s{data, size};
  while (s.more()) {
    const std::uint8_t op = s.next() % 8;
    const std::uint32_t slot = s.next() % 4;
    auto it = slot_conn.find(slot);
    const bool have = it != slot_conn.end() && open.count(it->second) && !transport.closed.count(it->second);
    const ConnId conn = have ? it->second : 0;
    const bool held = have && transport.held.count(conn);
    auto feed = [&](const std::string& bytes) {
      engine.received(conn, std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), now);
    };
    switch (op) {
      case 0:
        if (!have) {
          const ConnId id = next_conn++;
          const std::string peer = "10.0.0." + std::to_string(s.next() % 3) + ":" + std::to_string(id);
          if (engine.connected(id, peer, now)) open.insert(id), slot_conn[slot] = id;
        }
        break;
      case 1:
      case 2:
        if (have && !held) {
          wire::Hello h;
          h.role = op == 1 ? wire::Role::member : wire::Role::observer;
          const char* node = s.next() % 3 ? "n" : "m";
          if (op == 1) h.identity = Identity{node, s.next() % 8u, s.next() % 2u, "h", 1};
          h.mac = wire::client_mac(key, wire::Nonce{}, h);
          if (s.next() % 8 == 0) h.mac[0] ^= 1;  // a wrong secret, now and then
          std::string frame;
          wire::encode(h, frame);
          feed(frame);
        }
        break;
      case 3:
        if (have && !held) {
          // A request on the connection itself, or in one of its channels
          // (many members on one connection): a request, a channel's
          // Hello (a wrong MAC now and then) or its Closed.
          std::string frame;
          const std::uint32_t channel = s.next() % 4;
          switch (channel == 0 ? 0 : s.next() % 3) {
            case 0:
              wire::encode(request(s, next_id++), frame);
              break;
            case 1: {
              wire::Hello h;
              h.identity = Identity{s.next() % 3 ? "n" : "m", s.next() % 8u, s.next() % 2u, "h", 1};
              h.mac = wire::client_mac(key, wire::Nonce{}, h, channel);
              if (s.next() % 8 == 0) h.mac[0] ^= 1;
              wire::encode(h, frame);
              break;
            }
            default:
              wire::encode(wire::Closed{Status::connection_lost, "gone"}, frame);
          }
          if (channel != 0) {
            std::string wrapped;
            wire::wrap_in_channel(channel, frame, wrapped);
            frame.swap(wrapped);
          }
          feed(frame);
        }
        break;
      case 4:
        if (have && !held) {  // arbitrary bytes
          const std::size_t n = std::min<std::size_t>(s.next() % 64, s.size - s.pos);
          feed(std::string(reinterpret_cast<const char*>(s.data + s.pos), n));
          s.pos += n;
        }
        break;
      case 5:
        if (have) {
          engine.disconnected(conn, now);
          open.erase(conn);
        }
        break;
      case 6:
        now += std::chrono::milliseconds(10 * s.next());
        engine.tick(now);
        break;
      default:
        switch (s.next() % 5) {
          case 0: engine.put("k" + std::string(1, static_cast<char>('a' + s.next() % 4)), "x"); break;
          case 1: engine.declare("n", s.next() % 5); break;
          case 2: engine.request_stop("fuzz"); break;
          case 3:  // the peer stops reading its replies, or has drained them
            if (have && held) {
              transport.held.erase(conn);
              engine.resume(conn, now);
            } else if (have) {
              transport.held.insert(conn);
            }
            break;
          default: (void)engine.members(); break;
        }
    }
    const EngineStats st = engine.stats();
    if (st.members_alive > st.member_records || st.pending_fences > 4 || st.member_records > 6 ||
        st.unauthenticated > 3 || st.unauthenticated > st.connections ||
        st.channels > 2 * st.connections) {
      std::abort();
    }
  }
  now += std::chrono::hours(1);
  engine.tick(now);
  if (engine.stats().pending_waits != 0 || engine.stats().pending_fences != 0) std::abort();
  return 0;
}
