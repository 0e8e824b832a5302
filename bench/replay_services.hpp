// The services `slipway-bench replay` compares, each started once for the
// whole run in processes of its own and stopped at its end: slipway's replay
// node (slipway-replay, one shard, under a rendezvous this process serves;
// a uniform table, or a queue), Debian's redis-server, and
// bench/json_replay.py (the first actor_learner example's JSON-lines
// server). Each keeps at most `capacity` items.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace slipway::bench {

class ReplayService {
 public:
  virtual ~ReplayService() = default;
  // What the load processes get as --address: host:port, or (slipway) the
  // replay node's name.
  virtual std::string address() const = 0;
  // Extra "NAME=value" environment entries of the load processes.
  virtual std::vector<std::string> role_env() const { return {}; }
  // The server's process (its CPU is the service's own).
  virtual pid_t server_pid() const = 0;
};


// Each throws std::runtime_error saying what is missing or what failed.
// `ucx_tls`: UCX_TLS of slipway-replay and its clients (empty: UCX's own
// choice). slipway's node and its one table are both named `node`: the
// node "replay" has a uniform table (FIFO remover), start_slipway_queue's
// node "queue" a `kind = "queue"` table of `capacity` items.
std::unique_ptr<ReplayService> start_redis(std::uint64_t capacity);
std::unique_ptr<ReplayService> start_json(std::uint64_t capacity);
std::unique_ptr<ReplayService> start_slipway(std::uint64_t capacity, const std::string& ucx_tls);
std::unique_ptr<ReplayService> start_slipway_queue(std::uint64_t capacity, const std::string& ucx_tls);

}  // namespace slipway::bench
