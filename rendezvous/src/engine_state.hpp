// Private: the engine's state and the operations its source files share
// (engine.cpp dispatch, engine_members.cpp, engine_kv.cpp, engine_fence.cpp,
// engine_events.cpp).
#pragma once

#include <deque>
#include <list>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "slipway/rendezvous/engine.hpp"
#include "slipway/rendezvous/frame_reader.hpp"
#include "slipway/rendezvous/sha256.hpp"
#include "log.hpp"

namespace slipway::rendezvous {

struct NodeInfo;

// One (node, replica): its latest record, and while alive its connection.
struct Member {
  MemberRecord record;
  NodeInfo* node = nullptr;
  ConnId conn = 0;
  std::vector<std::string> task_keys;  // keys it put with Scope::task (some may be stale)
  // While departed: its place in Engine::State::departed_outside or
  // departed_inside (the order records are recycled in).
  std::list<Member*>* departed_list = nullptr;
  std::list<Member*>::iterator departed_at;
};

struct NodeInfo {
  std::string name;
  std::uint64_t generation = 0;
  std::uint32_t declared = 0;  // replicas declared; 0 = not declared
  std::uint32_t alive = 0;
  std::map<std::uint32_t, Member> replicas;
  std::vector<std::string> node_keys;  // keys put with Scope::node (some may be stale)
};

struct Subscription {
  std::uint8_t kinds = 0;
  std::string prefix;
};

struct Conn {
  enum class Phase { hello, member, observer };

  Conn(ConnId conn_id, std::string peer_name, std::uint32_t max_frame, TimePoint now)
      : id(conn_id), peer(std::move(peer_name)), reader(max_frame), opened(now), last_seen(now) {}

  ConnId id;
  std::string peer;
  // While unauthenticated: its peer address's entry in
  // Engine::State::unauthenticated_by_address (elements do not move).
  std::pair<const std::string, std::uint32_t>* address_count = nullptr;
  wire::FrameReader reader;
  Phase phase = Phase::hello;
  wire::Nonce server_nonce{};
  TimePoint opened;
  TimePoint last_seen;
  Member* member = nullptr;  // while phase == member
  // A channel (one member of many on one connection, engine_channels.cpp):
  // the connection carrying it and its number; 0 on a connection itself.
  ConnId parent = 0;
  std::uint32_t channel = 0;
  bool welcomed = false;  // a channel answered with an ok Welcome (so its closing is told)
  // On a connection that opened any: its open channels, by number (a
  // pointer, so that a channel's own Conn does not carry an empty map).
  std::unique_ptr<std::unordered_map<std::uint32_t, ConnId>> channels;
  bool carries_channels() const { return channels && !channels->empty(); }
  std::vector<std::uint64_t> waits;
  std::vector<Subscription> subscriptions;
  bool closed = false;
  bool held = false;  // the transport reported it backlogged: its requests wait for resume()

  // "peer" or "node.replica (peer)" for messages.
  std::string describe() const;
};

struct Entry {
  std::string value;
  Scope scope = Scope::program;
  Member* owner = nullptr;        // Scope::task
  std::uint32_t owner_attempt = 0;
  NodeInfo* owner_node = nullptr; // Scope::node
};

struct Waiter {
  ConnId conn = 0;
  std::uint32_t request = 0;
  std::string key;
  TimePoint deadline;
};

// One member that has entered a fence.
struct FenceSlot {
  ConnId conn = 0;
  std::uint32_t request = 0;
  std::string blob;
};

struct FenceState {
  std::string name;
  std::vector<NodeRange> ranges;     // resolved: every count explicit
  std::vector<std::uint32_t> offsets; // slot index of each range's first replica
  std::uint32_t total = 0;            // members in the set
  // Slots of the members that have entered, by slot index: a fence costs
  // what its entrants cost, not what its member set names.
  std::unordered_map<std::uint32_t, FenceSlot> slots;
  std::uint32_t arrived = 0;
  bool collect = false;
  std::uint64_t bytes = 0;
  TimePoint deadline = TimePoint::max();

  // Slot of node.replica, or -1.
  std::int64_t slot_of(const std::string& node, std::uint32_t replica) const;
};

// What the engine sends goes through this router: frames for a channel
// (a connection id of its own, ChannelRouter::kChannelBit set) are wrapped
// as ChannelFrames and sent on the connection that carries it; the rest go
// to the real transport unchanged.
class ChannelRouter final : public Transport {
 public:
  static constexpr ConnId kChannelBit = ConnId{1} << 63;
  explicit ChannelRouter(Transport& real) : real_(real) {}
  ConnId open(ConnId parent, std::uint32_t channel);
  bool is_channel(ConnId conn) const { return (conn & kChannelBit) != 0; }
  std::size_t channels() const { return routes_.size(); }

  void send(ConnId conn, std::string_view frames) override;
  void send_shared(ConnId conn, std::string_view prefix,
                   std::shared_ptr<const std::string> body) override;
  // For a channel: forgets the route only (the engine tells the client).
  void close(ConnId conn) override;
  bool backlogged(ConnId conn) override;

 private:
  struct Route {
    ConnId parent;
    std::uint32_t channel;
  };
  Transport& real_;
  std::unordered_map<ConnId, Route> routes_;
  ConnId next_ = kChannelBit | 1;
  std::string wrapped_;
};

struct Engine::State {
  State(EngineOptions opts, Transport& t);

  EngineOptions options;
  ChannelRouter router;
  Transport& transport;  // the router
  HmacKey hmac;
  std::chrono::milliseconds heartbeat_budget;

  std::unordered_map<ConnId, Conn> conns;  // connections and their channels
  std::size_t channel_conns = 0;           // of conns, the channels
  std::vector<ConnId> doomed;  // closed during this call; erased at its end
  // Connections before authentication: how many, by peer address, and their
  // deadlines in connection order (one fixed timeout, so a queue suffices;
  // entries of connections that went on are skipped when they come due).
  std::size_t unauthenticated = 0;
  std::unordered_map<std::string, std::uint32_t> unauthenticated_by_address;
  std::deque<std::pair<TimePoint, ConnId>> auth_deadlines;
  std::uint64_t refused_connections = 0;
  LogThrottle refusal_log;
  std::uint64_t evicted_connections = 0;
  LogThrottle eviction_log;
  LogThrottle auth_timeout_log;

  std::unordered_map<std::string, NodeInfo> nodes;
  std::size_t declared_nodes = 0;  // nodes with a declared replica count
  std::size_t member_records = 0;
  std::size_t members_alive = 0;
  // Departed records, oldest first: those outside the declared program are
  // recycled before those inside it, and only when max_members is reached.
  std::list<Member*> departed_outside;
  std::list<Member*> departed_inside;
  std::uint64_t recycled_records = 0;
  std::uint64_t requests = 0;  // frames handled from authenticated peers (heartbeats too)
  // Generations of a node never go back: a node forgotten with its last
  // record starts again above every generation it or another forgotten node had.
  std::uint64_t generation_floor = 0;

  std::unordered_map<std::string, Entry> kv;
  std::uint64_t kv_bytes = 0;

  std::uint64_t next_wait = 1;
  std::unordered_map<std::uint64_t, Waiter> waiters;
  std::unordered_map<std::string, std::vector<std::uint64_t>> waiters_by_key;
  std::set<std::pair<TimePoint, std::uint64_t>> wait_deadlines;

  std::unordered_map<std::string, FenceState> fences;
  std::set<std::pair<TimePoint, std::string>> fence_deadlines;

  std::unordered_set<ConnId> subscribers;
  std::vector<Event> observer_queue;  // for options.on_event, delivered by reap()
  bool stopping = false;
  std::string stop_reason;
  // program_stopping still to be pushed to subscribers: reap() sends it
  // after the in-process observer has heard it (see begin_stop).
  bool stop_broadcast_due = false;

  TimePoint next_scan = TimePoint::min();
  TimePoint last_scan = TimePoint::min();  // when scan() last ran (stalls are forgiven)
  std::string scratch;  // encoding buffer, reused

  // engine.cpp
  void consume(Conn& c, std::span<const std::uint8_t> bytes, TimePoint now);
  bool handle_frame(Conn& c, std::span<const std::uint8_t> body, TimePoint now);
  void handle_request(Conn& c, wire::Message& m, TimePoint now);
  void reply(Conn& c, std::uint32_t id, Status status, std::string message = {},
             wire::ReplyBody body = std::monostate{});
  void close_conn(Conn& c, const std::string& why_failed);
  void protocol_error(Conn& c, const std::string& what);
  void reap();
  void scan(TimePoint now);

  // engine_admission.cpp
  bool admit(ConnId id, const std::string& peer, TimePoint now);
  void authenticated(Conn& c);  // c leaves the hello phase
  void forget_unauthenticated(Conn& c);
  bool evict_oldest_unauthenticated(const std::string& address, TimePoint now,
                                    const std::string& why);
  void expire_unauthenticated(TimePoint now);
  TimePoint next_auth_deadline() const;

  // engine_channels.cpp
  // A ChannelFrame from connection c (authenticated): opens, closes or
  // serves one of its channels.
  void handle_channel_frame(Conn& c, std::span<const std::uint8_t> body, TimePoint now);
  void open_channel(Conn& c, std::uint32_t channel, const wire::Hello& hello, TimePoint now);
  // Closes the channels of connection c (its members fail with `why`).
  void close_channels(Conn& c, const std::string& why);
  // Forgets channel c on its connection and tells the client, when it was
  // welcomed and the connection stays.
  void detach_channel(Conn& c, const std::string& why);
  // The connection a frame of c travels on: c itself, or its parent.
  Conn& carrier(Conn& c);

  // engine_members.cpp
  void handle_hello(Conn& c, const wire::Hello& hello);
  void welcome(Conn& c, Status status, const std::string& message, const wire::Hello& hello,
               std::uint64_t generation);
  // c: the member's connection; nullptr for a task the launcher runs itself.
  Status join(Conn* c, const Identity& id, std::string& message, std::uint64_t& generation);
  void end_member(Member& m, MemberState state, std::int32_t exit_status, const std::string& reason);
  void handle_leave(Conn& c, const wire::Leave& m);
  std::vector<MemberRecord> snapshot() const;
  bool recycle_departed_record();
  void disown_task_keys(Member& m);
  Status declare_node(const std::string& node, std::uint32_t replicas, std::string& message);

  // engine_kv.cpp
  Status store(Member* owner, const std::string& key, std::string value, Scope scope,
               std::string& message);
  void erase_key(const std::string& key);
  void withdraw_task_keys(Member& m);
  void withdraw_node_keys(NodeInfo& n);
  void handle_put(Conn& c, wire::Put& m);
  void handle_get(Conn& c, const wire::Get& m);
  void handle_wait(Conn& c, const wire::WaitFor& m, TimePoint now);
  void handle_cas(Conn& c, wire::CompareAndSwap& m);
  void handle_add(Conn& c, const wire::Add& m);
  void handle_erase(Conn& c, const wire::Erase& m);
  void wake_waiters(const std::string& key, const std::string& value);
  void drop_waiter(std::uint64_t seq);
  void expire_waits(TimePoint now);

  // engine_fence.cpp
  void handle_fence(Conn& c, wire::Fence& m, TimePoint now);
  bool resolve(const MemberSet& set, std::vector<NodeRange>& out, std::string& message) const;
  void fail_fence(std::string name, Status status, const std::string& message);
  void complete_fence(FenceState& f);
  void fail_fences_of(const Member& m);
  void expire_fences(TimePoint now);

  // engine_events.cpp
  void handle_subscribe(Conn& c, const wire::Subscribe& m);
  void handle_unsubscribe(Conn& c, const wire::Unsubscribe& m);
  void publish_member(EventKind kind, const MemberRecord& record);
  void publish_key(const std::string& key, const std::string* value);
  void begin_stop(const std::string& reason);
  void send_due_stop();
  Event stop_event() const;  // program_stopping with stop_reason
};

}  // namespace slipway::rendezvous
