// The rendezvous client library: a task joins the program as a member (or a
// tool connects as an observer), then uses the key-value store, fences and
// events. Heartbeats are sent by a background thread.
//
// Contract: thread-safe; blocking calls take timeouts and throw Error on
// failure (Status says which), except where the signature reports the
// outcome (get/wait_for: nullopt; erase: false; fence: FenceResult). Requests
// from one thread are served in the order sent. The *_async forms return at
// once; their callback runs exactly once, on whichever client thread reads
// the reply (the reader thread, or a thread inside a blocking call), and
// must neither block nor call a blocking method of this client (that throws
// Error(invalid_request)). Event callbacks run on a separate event thread,
// in order, and may call blocking methods. A member that is destroyed without leave() is reported failed
// ("connection lost"): that is how a crashed task looks too.
//
// A Client from AgentConnection::join is one member of many on a shared
// connection: the same API and contract, except that its connection, its
// reader and event threads and its heartbeats are the AgentConnection's
// (its event callbacks share one thread with the other members'), and
// close() or destruction closes its channel only.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "slipway/rendezvous/error.hpp"
#include "slipway/rendezvous/types.hpp"

namespace slipway::rendezvous {

struct ClientOptions {
  std::chrono::milliseconds connect_timeout{10000};  // TCP connect plus handshake
  std::chrono::milliseconds request_timeout{30000};  // requests without their own timeout
  // Extra time given to the server to report a wait/fence timeout itself.
  std::chrono::milliseconds timeout_grace{5000};
  Limits limits;  // bounds on what the server may send
  // Called once, on the reader thread, when the connection is lost (not on
  // close()).
  std::function<void(const Error&)> on_disconnect;
};

struct CasResult {
  bool swapped = false;
  std::optional<std::string> current;  // the value after the operation
};

struct FenceResult {
  Status status = Status::ok;
  std::string message;           // names the failed or missing member(s)
  std::vector<FenceBlob> blobs;  // in member-set order, when collected
  bool ok() const { return status == Status::ok; }
};

struct MembersSnapshot {
  std::vector<MemberRecord> members;
  bool stopping = false;
  std::string stop_reason;
};

using SubscriptionId = std::uint64_t;
using EventCallback = std::function<void(const Event&)>;

class Client {
 public:
  // Joins as `identity` (host and pid: this host and process when left
  // empty/0). Throws Error: auth_failed (wrong secret, or a server that does
  // not know it), duplicate_member, stale_attempt, connection_lost, timeout.
  static std::unique_ptr<Client> connect(const std::string& endpoint, const std::string& token,
                                         Identity identity, ClientOptions options = {});
  // Connects without joining (for tools such as `slipway status`).
  static std::unique_ptr<Client> connect_observer(const std::string& endpoint,
                                                  const std::string& token,
                                                  ClientOptions options = {});
  // The same, with endpoint and secret from SLIPWAY_RDZV and SLIPWAY_TOKEN;
  // throws Error naming the variable that is missing.
  static std::unique_ptr<Client> connect_from_environment(Identity identity, ClientOptions options = {});
  static std::unique_ptr<Client> connect_observer_from_environment(ClientOptions options = {});

  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const Identity& identity() const;
  bool is_member() const;
  std::uint64_t join_generation() const;  // the node's generation after this join
  std::chrono::milliseconds heartbeat_interval() const;
  bool connected() const;

  // Key-value store. Scope::task/node keys need a member (see types.hpp).
  void put(const std::string& key, const std::string& value, Scope scope);
  std::optional<std::string> get(const std::string& key);
  // Pushed by the server when the key is set; nullopt on timeout.
  std::optional<std::string> wait_for(const std::string& key, std::chrono::milliseconds timeout);
  CasResult compare_and_swap(const std::string& key, const std::optional<std::string>& expected,
                             const std::string& desired, Scope scope);
  std::int64_t add(const std::string& key, std::int64_t delta, Scope scope);
  bool erase(const std::string& key);

  // Barrier plus allgather over `members`; every participant passes the same
  // name, member set and collect flag. timeout 0: wait until complete or a
  // member fails.
  FenceResult fence(const std::string& name, const MemberSet& members, std::string blob,
                    std::chrono::milliseconds timeout, bool collect = true);

  // Events whose kind is in `kinds` (a mask of EventKind); key_changed only
  // for keys starting with key_prefix.
  SubscriptionId subscribe(std::uint8_t kinds, const std::string& key_prefix, EventCallback callback);
  void unsubscribe(SubscriptionId id);

  void leave(std::int32_t exit_status);
  void request_stop(const std::string& reason);
  MembersSnapshot members();
  void declare(const std::string& node, std::uint32_t replicas);

  // Asynchronous forms (see the contract above).
  using DoneCallback = std::function<void(Status, const std::string& message)>;
  using ValueCallback =
      std::function<void(Status, std::optional<std::string> value, const std::string& message)>;
  using FenceCallback = std::function<void(FenceResult)>;
  void put_async(const std::string& key, const std::string& value, Scope scope, DoneCallback done);
  void get_async(const std::string& key, ValueCallback done);
  void wait_for_async(const std::string& key, std::chrono::milliseconds timeout, ValueCallback done);
  void fence_async(const std::string& name, const MemberSet& members, std::string blob,
                   std::chrono::milliseconds timeout, bool collect, FenceCallback done);
  // subscribe() whose acknowledgement comes to `done` (at once when the
  // filter was subscribed already); events may come before it. A refused
  // subscription is dropped before `done` runs.
  // leave() whose reply comes to `done`; requests sent after it on this
  // client reach the server after the leave.
  void leave_async(std::int32_t exit_status, DoneCallback done);
  SubscriptionId subscribe_async(std::uint8_t kinds, const std::string& key_prefix, EventCallback callback,
                                 DoneCallback done);

  // Closes the connection (also done by the destructor).
  void close();

  struct Impl;

 private:
  friend class AgentConnection;
  explicit Client(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;  // shared with its queued events (weakly) and its channels
};

}  // namespace slipway::rendezvous
