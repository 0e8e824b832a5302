// The rendezvous protocol engine: membership, heartbeats, the key-value
// store with scopes, wait-for-key, fences and events, with no I/O of its own.
//
// Contract: single-threaded. The transport reports connections, received
// bytes and disconnections, and calls tick() at next_deadline(); the engine
// answers through the Transport interface only. Time comes in as arguments
// and randomness and wall-clock time through EngineOptions, so tests drive it
// deterministically. No call blocks, and every bound in Limits is enforced.
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
};

struct EngineOptions {
  std::string token;  // the program's secret; must not be empty
  std::chrono::milliseconds heartbeat_interval{1000};
  std::uint32_t miss_budget = 3;  // a member silent for interval * budget has failed
  Limits limits;
  // In-process observer: member joined/failed/left and program stopping (not
  // key changes). Runs inside the engine call that caused the event.
  std::function<void(const Event&)> on_event;
  std::function<wire::Nonce()> make_nonce;     // default: the kernel CSPRNG
  std::function<std::int64_t()> wall_clock_ms; // default: system_clock
};

struct EngineStats {
  std::size_t connections = 0;
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

  // A new connection from `peer` (for logs). Sends the challenge. Returns
  // false when the connection limit is reached: the transport closes it.
  bool connected(ConnId conn, std::string peer, TimePoint now);
  // Bytes read from `conn`, any split.
  void received(ConnId conn, std::span<const std::uint8_t> bytes, TimePoint now);
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
  std::vector<MemberRecord> members() const;
  EngineStats stats() const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace slipway::rendezvous
