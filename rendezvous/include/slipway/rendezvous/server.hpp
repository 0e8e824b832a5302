// The rendezvous server: the engine behind a TCP listener, on one thread of
// its own, embeddable in the launcher or run standalone (`slipway rendezvous`).
//
// Contract: start() binds (port 0 = ephemeral) and returns once the server
// accepts connections; endpoint() is then "host:port" ("[addr]:port" for
// IPv6). Every public method is thread-safe; called from another thread it
// runs on the server thread and waits, called from on_event (the server
// thread) it runs inline. on_event must not block: it delays every client.
// stop() (also run by the destructor) closes every connection.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "slipway/rendezvous/engine.hpp"
#include "slipway/rendezvous/types.hpp"

namespace slipway::rendezvous {

struct ServerOptions {
  // "127.0.0.1" (default, this host only); "0.0.0.0" or "::" (IPv4 and IPv6)
  // for clusters; any address or host name of this host.
  std::string bind_address = "127.0.0.1";
  std::uint16_t port = 0;
  std::string token;  // the program's secret (generate_token()); required
  // Host part of endpoint(). Default: the bind address, or this host's name
  // when bound to a wildcard address.
  std::string advertise_host;
  std::chrono::milliseconds heartbeat_interval{1000};
  std::uint32_t miss_budget = 3;
  Limits limits;
  // Member joined/failed/left (with exit status), program stopping, and
  // changes of keys under observed_key_prefixes (EngineOptions), on the
  // server thread.
  std::function<void(const Event&)> on_event;
  std::vector<std::string> observed_key_prefixes;
};

// What the server's transport holds now (for tests and tools).
struct TransportStats {
  std::size_t connections = 0;
  std::size_t paused_connections = 0;       // not read from until their output drains
  std::uint64_t queued_bytes = 0;           // output queued, all connections
  std::uint64_t peak_queued_bytes = 0;      // most ever queued to one connection
  std::uint64_t dropped_slow_readers = 0;   // dropped at Limits::max_outbound_bytes
};

class Server {
 public:
  explicit Server(ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Throws Error (with the address) when the address cannot be bound.
  void start();
  void stop();

  std::string endpoint() const;
  std::uint16_t port() const;

  // The launcher's own view and operations (program scope keys).
  void put(const std::string& key, const std::string& value);
  std::optional<std::string> get(const std::string& key);
  bool erase(const std::string& key);
  void declare(const std::string& node, std::uint32_t replicas);
  void request_stop(const std::string& reason);
  bool stopping();
  std::vector<MemberRecord> members();
  EngineStats stats();
  TransportStats transport_stats();
  // The values of `keys` now (nothing where unset), in one trip.
  std::vector<std::optional<std::string>> get_many(const std::vector<std::string>& keys);

  // Tasks the launcher runs itself (Engine::join_local and the rest), many
  // in one trip to the server thread. join_local joins each request in
  // order (Engine::join_local) and then reads the values of its `wanted`
  // keys, once every request has published its keys (so tasks handling
  // each other find each other's addresses); it waits for the result.
  // update_local is queued and returns at once: for each change in order,
  // Engine::set_local_pid when `pid` is set, then Engine::end_local when
  // `exit_status` is. Queued and waiting calls run in the order made.
  struct LocalJoinRequest {
    Identity id;
    std::vector<std::pair<std::string, std::string>> task_keys;
    std::vector<std::string> wanted;
  };
  struct LocalJoin {
    Status status = Status::ok;
    std::string message;
    std::vector<std::optional<std::string>> values;  // one per wanted key
  };
  std::vector<LocalJoin> join_local(const std::vector<LocalJoinRequest>& requests);
  struct LocalChange {
    Identity id;
    std::optional<std::int64_t> pid;
    std::optional<std::int32_t> exit_status;
  };
  void update_local(std::vector<LocalChange> changes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace slipway::rendezvous
