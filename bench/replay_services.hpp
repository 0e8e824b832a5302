// The services `slipway-bench replay` compares, each started once for the
// whole run in processes of its own and stopped at its end: slipway's replay
// node (slipway-replay, one shard, under a rendezvous this process serves),
// Debian's redis-server, and bench/json_replay.py (the first actor_learner
// example's JSON-lines server). Each keeps at most `capacity` items.
#pragma once

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
};

// This process's environment with `extra` ("NAME=value") replacing or
// adding those variables: the environment of the benchmark's processes.
std::vector<std::string> environment_with(const std::vector<std::string>& extra);

// Each throws std::runtime_error saying what is missing or what failed.
// `ucx_tls`: UCX_TLS of slipway-replay and its clients (empty: UCX's own
// choice).
std::unique_ptr<ReplayService> start_redis(std::uint64_t capacity);
std::unique_ptr<ReplayService> start_json(std::uint64_t capacity);
std::unique_ptr<ReplayService> start_slipway(std::uint64_t capacity, const std::string& ucx_tls);

}  // namespace slipway::bench
