// The rendezvous protocol engine: membership, heartbeats, the key-value
// store with scopes, wait-for-key, fences and events, with no I/O of its own.
//
// Contract: single-threaded. The transport reports connections, received
// bytes and disconnections, and calls tick() at next_deadline(); the engine
// answers through the Transport interface only. Time comes in as arguments
// and randomness and wall-clock time through EngineOptions, so tests drive it
// deterministically. No call blocks, and every bound in Limits is enforced.
//
// Backpressure: before serving each request the engine asks the transport
// whether the connection is backlogged (too much output not yet taken by the
// peer); if so it holds the connection's remaining bytes and serves nothing
// more from it until resume(). The transport must not feed a connection it
// reported backlogged until it has called resume() for it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "slipway/rendezvous/types.hpp"
#include "slipway/rendezvous/wire.hpp"

namespace slipway::rendezvous {

using ConnId = std::uint64_t;
using SteadyClock = std::chrono::steady_clock;
using TimePoint = SteadyClock::time_point;

// What the engine needs from its transport.
class Transport {
 public:
  virtual ~Transport() = default;
  // Queues whole frames for `conn`.
  virtual void send(ConnId conn, std::string_view frames) = 0;
  // Queues one frame made of a private prefix and a body shared between many
  // connections (fence results, events): the body is never copied.
  virtual void send_shared(ConnId conn, std::string_view prefix,
                           std::shared_ptr<const std::string> body) = 0;
  // Flushes what is queued for `conn`, then closes it. The engine has already
  // forgotten the connection; the transport need not report it again.
  virtual void close(ConnId conn) = 0;
  // True when `conn`'s peer has left so much output unread that no more of
  // its requests should be served now (the engine then holds them until
  // Engine::resume). Called once per request: must be O(1).
  virtual bool backlogged(ConnId conn) = 0;
};

struct EngineOptions {
  std::string token;  // the program's secret; must not be empty
  std::chrono::milliseconds heartbeat_interval{1000};
  std::uint32_t miss_budget = 3;  // a member silent for interval * budget has failed
  Limits limits;
  // In-process observer: member joined/failed/left, program stopping, and
  // changes of keys starting with one of observed_key_prefixes (none when
  // empty).
  // Runs at the end of the engine call that caused the event.
  std::function<void(const Event&)> on_event;
  std::vector<std::string> observed_key_prefixes;
  std::function<wire::Nonce()> make_nonce;     // default: the kernel CSPRNG
  std::function<std::int64_t()> wall_clock_ms; // default: system_clock
};

struct EngineStats {
  std::size_t connections = 0;
  std::size_t channels = 0;             // members carried by connections of many (not in connections)
  std::size_t unauthenticated = 0;      // connections that have not sent a valid Hello yet
  std::uint64_t refused_connections = 0; // refused at connect: max_connections was reached
  std::uint64_t evicted_connections = 0; // unauthenticated, closed to admit a newer one at a cap
  std::uint64_t recycled_records = 0;    // departed member records forgotten to make room
  std::uint64_t requests = 0;            // requests handled (heartbeats included)
  std::size_t members_alive = 0;
  std::size_t member_records = 0;
  std::size_t keys = 0;
  std::uint64_t kv_bytes = 0;
  std::size_t pending_waits = 0;
  std::size_t pending_fences = 0;
  std::size_t fence_waiters = 0;  // members inside a pending fence
};

class Engine {
 public:
  Engine(EngineOptions options, Transport& transport);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // A new connection from `peer`, "address:port" (for logs; connections
  // before authentication are counted per address). Sends the challenge.
  // Returns false when Limits::max_connections are open: the transport
  // closes it. At max_unauthenticated (in total) or
  // max_unauthenticated_per_address (from its address) the new connection
  // is admitted and the oldest one still waiting for its Hello (from that
  // address, or from any) is closed instead.
  bool connected(ConnId conn, std::string peer, TimePoint now);
  // Whether another connection may be accepted now: false while
  // Limits::max_connections are open (the transport then leaves new ones in
  // the listen backlog).
  bool accepting() const;
  // Bytes read from `conn`, any split.
  void received(ConnId conn, std::span<const std::uint8_t> bytes, TimePoint now);
  // Serves the requests held back since the transport reported `conn`
  // backlogged (see Transport::backlogged); they may hold it back again.
  void resume(ConnId conn, TimePoint now);
  // The connection dropped (EOF or error). A live member on it has failed.
  void disconnected(ConnId conn, TimePoint now);
  // Fires heartbeat, wait, fence and authentication deadlines due by `now`.
  void tick(TimePoint now);
  // When tick() next has work; TimePoint::max() when nothing is pending.
  TimePoint next_deadline() const;

  // The launcher's own operations (program scope, no connection).
  void put(const std::string& key, const std::string& value);
  std::optional<std::string> get(const std::string& key) const;
  bool erase(const std::string& key);
  // Sets how many replicas `node` has: what MemberSet::program() and ranges
  // with count 0 resolve to.
  void declare(const std::string& node, std::uint32_t replicas);
  void request_stop(const std::string& reason);
  bool stopping() const;

  // Tasks the launcher runs itself, with no agent and no connection
  // (docs/local.md). join_local joins `id` under the rules a connected
  // member's join follows (one join per attempt, only newer attempts
  // replace a live one; no heartbeats) and publishes `task_keys` as its
  // task-scoped keys; on refusal it returns why in `message` and changes
  // nothing. set_local_pid changes the pid members() shows. end_local ends
  // the member as a leave with `exit_status` does (its task keys are
  // withdrawn unless the status is 0, fences over it fail, subscribers hear
  // of it); both ignore an attempt that is no longer the live one.
  Status join_local(const Identity& id,
                    const std::vector<std::pair<std::string, std::string>>& task_keys,
                    std::string& message);
  void set_local_pid(const Identity& id, std::int64_t pid);
  void end_local(const Identity& id, std::int32_t exit_status);
  std::vector<MemberRecord> members() const;
  EngineStats stats() const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace slipway::rendezvous
