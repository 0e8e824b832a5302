// One round of `slipway-bench replay` on one service: its load processes
// started at once, the items they completed in the measured window, and
// the CPU every process of the round used in that window (replay_cpu.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "replay_load.hpp"
#include "replay_services.hpp"

namespace slipway::bench {

// Which roles run: all of them (the benchmark's load), or only the actors
// or only the learner (so that the server's CPU per insert and per sample
// are each measured alone).
enum class Phase { mixed, inserts, samples };

struct RoundSpec {
  std::string role_service;  // redis | json | slipway: the roles' client
  ReplayLoad load;
  int actors = 8;
  int first_actor_id = 0;  // the actors' ids from here on
  Phase phase = Phase::mixed;
  double lead_seconds = 1.5;  // from spawning to the start of the load
  double warmup_seconds = 1.0;  // load before the window opens
  double seconds = 4.0;  // the window
};

struct RoundResult {
  double seconds = 0;
  std::uint64_t inserted = 0;  // items, by every actor, in the window
  std::uint64_t sampled = 0;   // items, by the learner
  std::uint64_t requests = 0;  // calls the roles completed in the window
  double server_cpu = 0;       // seconds of the server's process
  double total_cpu = 0;        // seconds of every process: server, roles, this one
  std::uint64_t role_switches = 0;  // context switches of the roles
  double insert_rate() const { return static_cast<double>(inserted) / seconds; }
  double sample_rate() const { return static_cast<double>(sampled) / seconds; }
};

// Throws std::runtime_error naming the role that failed and its output.
RoundResult run_round(const ReplayService& service, const RoundSpec& spec);

}  // namespace slipway::bench
