// The program model: a validated topology (program, nodes and their keys),
// and the functions that read it from TOML. docs/topology.md documents every
// key, its type, default and validation rule.
//
// Contract: load_topology / parse_topology either return a Program that has
// passed every validation rule, or every problem found, each located at the
// offending key or value (never a partial Program). Nodes keep the order of
// the file. Every value keeps the location it was written at (a value taken
// from [defaults] keeps the location in [defaults]).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "slipway/core/diagnostic.hpp"
#include "slipway/core/replay_settings.hpp"

namespace slipway::core {

enum class Framework { none, torch, tensorflow, jax, horovod, paddle, mpi };
// exec: runs its command; courier: runs its command, reached by courier RPC
// through its name; replay: runs slipway's replay server (kReplayProgram)
// over its tables, reached by courier too.
enum class NodeType { exec, courier, replay };

std::string_view to_string(Framework f);
std::optional<Framework> framework_from_string(std::string_view s);
std::string_view to_string(NodeType t);
std::optional<NodeType> node_type_from_string(std::string_view s);

// `replicas = 3` is {3, 3}; `replicas = "2:8"` is elastic {2, 8}.
struct ReplicaRange {
  std::uint32_t min = 1;
  std::uint32_t max = 1;
  bool elastic() const { return min != max; }
  friend bool operator==(const ReplicaRange&, const ReplicaRange&) = default;
};

// The [node.X.ucx] table, passed to the task as UCX_* variables.
struct UcxSettings {
  std::optional<std::string> tls;          // UCX_TLS
  std::optional<std::string> net_devices;  // UCX_NET_DEVICES
  std::optional<std::string> rndv_thresh;  // UCX_RNDV_THRESH
  bool empty() const { return !tls && !net_devices && !rndv_thresh; }
  friend bool operator==(const UcxSettings&, const UcxSettings&) = default;
};

// The [node.NAME.elastic] table (and [program.elastic], its default for
// every elastic node): how an elastic node (replicas = "MIN:MAX") resizes
// while the program runs (docs/elastic.md). Unset keys are empty here; a
// node's resolved values come from elastic_settings().
struct ElasticSettings {
  std::optional<bool> grow_manual;          // `grow`: "auto" (false) or "manual" (true)
  std::optional<std::uint32_t> settle_ms;   // `settle`: seconds, merged triggers' window
  std::optional<bool> shrink_on_loss;       // `on_loss`: "replace" (false) or "shrink" (true)
  // [program.elastic] only (Slurm): satellite jobs the program may hold at
  // once to grow elastic nodes beyond its allocation, and how long one may
  // pend before it is cancelled (seconds).
  std::optional<std::uint32_t> satellites;
  std::optional<std::uint32_t> satellite_wait_ms;
  friend bool operator==(const ElasticSettings&, const ElasticSettings&) = default;
};

struct EnvVar {
  Located<std::string> name;
  Located<std::string> value;
};

// One [node.NAME] table with [defaults] applied. Quantities that are "not
// requested" are 0 (mem_mb, time_minutes, hosts) or empty (strings).
struct NodeSpec {
  Located<std::string> name;                    // at the key NAME of [node.NAME]
  Located<NodeType> type{NodeType::exec};
  Located<std::vector<std::string>> command;    // argv, never empty once valid
  Located<std::vector<std::string>> wrapper;    // argv put before the command
  Located<ReplicaRange> replicas;
  Located<std::uint32_t> cpus{1};               // per replica
  Located<std::uint32_t> gpus{0};               // per replica
  Located<std::uint64_t> mem_mb{0};             // per replica, MiB; 0 = not requested
  Located<Framework> framework{Framework::none};
  std::vector<Located<std::string>> handles;    // node names, file order
  std::vector<Located<std::string>> ports;      // user-declared port names
  std::vector<EnvVar> env;                      // file order; [defaults] merged in
  Located<std::string> workdir;                 // absolute once loaded
  Located<bool> daemon{false};
  // key `notice_signal`: the signal the task's command also gets with a
  // checkpoint notice (docs/resume.md); 0 = none.
  Located<int> notice_signal{0};
  Located<std::uint32_t> max_retries{0};        // program default when unset
  Located<std::string> colocate;                // group name; empty = none
  Located<std::uint32_t> hosts{0};              // key `nodes`: hosts to spread over; 0 = any
  // Slurm placement, passed through to the step (empty = not set).
  Located<std::string> partition;
  Located<std::string> constraint;
  Located<std::string> account;
  Located<std::string> qos;
  Located<std::uint32_t> time_minutes{0};       // key `time`; 0 = no limit set
  Located<UcxSettings> ucx;
  Located<ElasticSettings> elastic;             // its own table; [program.elastic] fills the rest
  ReplaySettings replay;                        // type = "replay" only: tables and checkpoint

  bool handles_node(std::string_view other) const;
};

struct Program {
  Located<std::string> name;
  Located<std::uint32_t> max_retries{0};
  Located<ElasticSettings> elastic;   // [program.elastic]: defaults of every elastic node
  // The observe endpoint's port on 127.0.0.1 (docs/observe.md); -1: unset
  // (any free port), 0: any free port.
  Located<std::int32_t> metrics_port{-1};
  std::string source_file;   // as given to load/parse
  std::string base_dir;      // absolute directory of source_file (relative workdirs)
  std::vector<NodeSpec> nodes;

  const NodeSpec* find_node(std::string_view name) const;
};

// An elastic node's settings with every key resolved: the node's own,
// else [program.elastic]'s, else the defaults (grow "auto", settle 1 s,
// on_loss "replace").
struct ResolvedElastic {
  bool grow_manual = false;
  std::uint32_t settle_ms = 1000;
  bool shrink_on_loss = false;
};
ResolvedElastic elastic_settings(const Program& program, const NodeSpec& node);

// [program.elastic]'s satellite keys resolved: none by default, and a
// pending satellite job waits 600 s at most.
struct SatelliteSettings {
  std::uint32_t jobs = 0;
  std::uint32_t wait_ms = 600000;
};
SatelliteSettings satellite_settings(const Program& program);

struct TopologyResult {
  std::optional<Program> program;     // set iff diagnostics is empty
  std::vector<Diagnostic> diagnostics;
  bool ok() const { return program.has_value(); }
};

// Reads and validates a topology file. A file that cannot be read gives one
// diagnostic with an unknown location ("FILE: cannot open: reason"). Only a
// regular file is read (a FIFO or device is refused without blocking), up to
// 16 MiB; "-" reads standard input, named "<stdin>" in diagnostics, with
// relative workdirs from the current directory.
TopologyResult load_topology(const std::string& path);

// Parses and validates topology text; `filename` names it in diagnostics and
// its directory anchors relative `workdir`s (it need not exist).
TopologyResult parse_topology(std::string_view text, const std::string& filename);

// The keys the parser knows in one table: "" (top level), "program",
// "defaults", "node", "ucx", "elastic", and a replay node's "tables" (one
// table's keys), "rate_limiter" and "checkpoint". Used by the docs check and
// for suggestions.
const std::vector<std::string_view>& topology_keys(std::string_view table);

// Upper-cases and turns '-' and '.' into '_' (node and port names in
// SLIPWAY_ADDR_<NODE>_<PORT>, SLIPWAY_PORT_<PORT>).
std::string env_name_part(std::string_view name);

// Splits a command line like a POSIX shell (quotes, backslashes, no
// expansion). On malformed input returns std::nullopt and sets `error`.
std::optional<std::vector<std::string>> split_shell_words(std::string_view line,
                                                          std::string* error = nullptr);

}  // namespace slipway::core
