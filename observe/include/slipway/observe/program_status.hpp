// The status document of a running program (docs/observe.md, schema 1):
// what `slipway status --json`, `slipway top`, the page (/api/status) and
// the metrics (/metrics) all show. The launcher fills it; nothing here does
// I/O.
//
// Contract: to_json writes the documented schema (every field, null where
// unknown); status_from_json reads it back (for tools), refusing a document
// of another schema. Texts come from the launcher and the topology, never
// from a task's environment; nothing carries the program's secret.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "slipway/observe/event_record.hpp"

namespace slipway::observe {

inline constexpr int kStatusSchema = 1;

// The task states of the document, in this order (their counts per node).
inline constexpr const char* kTaskStates[] = {"pending", "running", "backoff", "succeeded",
                                              "failed",  "stopped", "idle"};

struct LastExit {
  std::uint32_t replica = 0;
  int attempt = 0;
  std::string status;  // "exit 1", "signal 9 (SIGKILL)", "lost: ..."
  std::int64_t unix_ms = 0;
};

struct TaskStatus {
  std::uint32_t replica = 0;
  std::string state = "pending";
  std::string host;
  std::optional<std::int64_t> pid;
  int attempt = 0;
  int restarts = 0;
  std::optional<int> epoch;
  std::optional<std::int64_t> started_unix_ms;
  std::optional<double> cpu_seconds;
  std::optional<std::uint64_t> rss_bytes;
  std::optional<LastExit> last_exit;
};

struct NodeStatus {
  std::string name;
  std::string type;
  std::vector<std::string> handles;
  std::uint32_t replicas = 0;  // live now
  std::uint32_t min = 0, max = 0;
  bool elastic = false, world = false, daemon = false;
  std::optional<int> epoch;
  std::vector<TaskStatus> tasks;
  // Derived from tasks by finish_node().
  int restarts = 0;
  std::map<std::string, int> states;
  std::optional<LastExit> last_exit;
  double cpu_seconds = 0;
  std::uint64_t rss_bytes = 0;
};

struct ReplayTableStatus {
  std::string name;
  std::uint64_t size = 0, max_size = 0, inserted_total = 0, sampled_total = 0;
  std::uint64_t parked_inserts = 0, parked_samples = 0;
  double limiter_blocked_seconds_total = 0;
};

struct ReplayStatus {
  std::string task;  // "replay.0"
  std::int64_t unix_ms = 0;
  std::optional<std::int64_t> last_checkpoint_unix_ms;
  std::vector<ReplayTableStatus> tables;
};

struct RendezvousStatus {
  std::string endpoint;
  std::uint64_t members = 0, requests_total = 0, connections = 0;
};

struct ProgramStatus {
  std::string program;
  std::string run;
  std::uint32_t resume = 0;
  std::int64_t unix_ms = 0, started_unix_ms = 0;
  std::string state = "running";  // running, stopping, finished
  std::string stop_reason;
  std::string metrics;  // the page's URL, empty: none
  RendezvousStatus rendezvous;
  std::vector<NodeStatus> nodes;
  std::vector<ReplayStatus> replay;
  std::vector<Event> events;  // the newest, oldest first
};

// Sums a node's tasks into restarts, states, last_exit, cpu_seconds and rss_bytes.
void finish_node(NodeStatus& node);

nlohmann::json to_json(const ProgramStatus& status);
// Throws std::runtime_error when the document is not of kStatusSchema or malformed.
ProgramStatus status_from_json(const nlohmann::json& document);

// The usage key's JSON ("usage/NODE.REPLICA": cpu_seconds, rss_bytes) and a
// replay shard's ("replay/stats/NODE.REPLICA"), as the agents put them;
// nothing when malformed.
struct TaskUsage {
  double cpu_seconds = 0;
  std::uint64_t rss_bytes = 0;
};
std::optional<TaskUsage> parse_usage(const std::string& json);
std::optional<ReplayStatus> parse_replay_stats(const std::string& task, const std::string& json);

}  // namespace slipway::observe
