// The names slipway's processes and the user's programs agree on, defined
// once: environment variables and rendezvous key names. docs/contract.md
// lists every one of them; the ctest unit:core:contract_documented fails
// when this header, the docs and the code's literals disagree.
//
// Contract: no other C++ file spells a SLIPWAY_* variable or a rendezvous
// key prefix as a literal; it uses these constants and builders.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace slipway::core::env {

// --- Every task's environment (set by the launch layer) --------------------
inline constexpr const char* kProgram = "SLIPWAY_PROGRAM";    // program name
inline constexpr const char* kNode = "SLIPWAY_NODE";          // node name
inline constexpr const char* kReplica = "SLIPWAY_REPLICA";    // 0-based replica
inline constexpr const char* kReplicas = "SLIPWAY_REPLICAS";  // replicas of the node
inline constexpr const char* kAttempt = "SLIPWAY_ATTEMPT";    // 0 at launch, +1 per relaunch
inline constexpr const char* kEpoch = "SLIPWAY_EPOCH";        // 0 at launch, +1 per epoch of the world
inline constexpr const char* kRendezvous = "SLIPWAY_RDZV";    // host:port of the rendezvous
inline constexpr const char* kToken = "SLIPWAY_TOKEN";        // the program's secret
inline constexpr const char* kPortPrefix = "SLIPWAY_PORT_";   // + <PORT>: the port to listen on
inline constexpr const char* kAddressPrefix = "SLIPWAY_ADDR_";  // + <NODE>_<PORT>: peers' host:port list
inline constexpr const char* kAddressFilePrefix = "SLIPWAY_ADDR_FILE_";  // + <NODE>_<PORT>: the live list's file
inline constexpr const char* kReplayConfig = "SLIPWAY_REPLAY_CONFIG";  // a replay node's tables (JSON)
inline constexpr const char* kResume = "SLIPWAY_RESUME";          // 0 at the first start, +1 per resume
inline constexpr const char* kStateDir = "SLIPWAY_STATE_DIR";     // the node's directory that survives resumes
inline constexpr const char* kNoticeFile = "SLIPWAY_NOTICE_FILE";  // where the agent writes checkpoint notices
inline constexpr const char* kArrayTask = "SLIPWAY_ARRAY_TASK";   // the Slurm array task the run is

// --- Set by a launcher for its agents and steps --------------------------
inline constexpr const char* kRunDir = "SLIPWAY_RUN_DIR";            // the run's directory
inline constexpr const char* kReplicaBase = "SLIPWAY_REPLICA_BASE";  // replica of a step's task 0

// --- Read from the user's environment (knobs) -----------------------------
inline constexpr const char* kRunRoot = "SLIPWAY_RUN_ROOT";          // where run directories go
inline constexpr const char* kLogLimit = "SLIPWAY_LOG_LIMIT";        // bound of each task log
inline constexpr const char* kWireTimeout = "SLIPWAY_WIRE_TIMEOUT";  // seconds to wait for addresses
inline constexpr const char* kAdvertiseHost = "SLIPWAY_ADVERTISE_HOST";  // address peers use
inline constexpr const char* kInlineTasks = "SLIPWAY_INLINE_TASKS";  // 0: every task via slipway-exec
inline constexpr const char* kDebug = "SLIPWAY_DEBUG";               // debug logging
inline constexpr const char* kPmixVerbose = "SLIPWAY_PMIX_VERBOSE";  // PMIx server logging
inline constexpr const char* kBin = "SLIPWAY_BIN";                   // the slipway program to run
inline constexpr const char* kExec = "SLIPWAY_EXEC";                 // the slipway-exec program to run
inline constexpr const char* kCourierLibrary = "SLIPWAY_COURIER_LIBRARY";  // Python's path of libslipway-courier.so

// --- Internal guards between slipway's own processes ----------------------
inline constexpr const char* kSpankReexec = "SLIPWAY_SPANK_REEXEC";        // srun re-exec guard
inline constexpr const char* kLaunchInSalloc = "SLIPWAY_LAUNCH_IN_SALLOC";  // launch re-exec guard
inline constexpr const char* kLaunchNoGpus = "SLIPWAY_LAUNCH_NO_GPUS";      // the job has no GPUs

// Every name above starts with this; the user's `env` may not use it.
inline constexpr std::string_view kReservedPrefix = "SLIPWAY_";

// SLIPWAY_PORT_<PORT> and SLIPWAY_ADDR_<NODE>_<PORT>, names upper-cased with
// '-' and '.' turned into '_' (core::env_name_part).
std::string port_variable(std::string_view port);
std::string address_variable(std::string_view node, std::string_view port);
std::string address_file_variable(std::string_view node, std::string_view port);

}  // namespace slipway::core::env

namespace slipway::core::keys {

// Rendezvous key names (docs/contract.md, "Rendezvous keys"). Task-scoped
// unless said otherwise.

// "addr/<node>/<replica>/<port>" = "host:port": a task's listening port.
inline constexpr std::string_view kAddressPrefix = "addr/";
std::string address(std::string_view node, std::uint32_t replica, std::string_view port);

// "stop/<node>/<replica>" = reason: the launcher asks one task to stop
// (program scope, written by the launcher only).
inline constexpr std::string_view kStopPrefix = "stop/";
std::string stop(std::string_view node, std::uint32_t replica);

// "checkpoint/...": the checkpoint notice and its requests.
inline constexpr std::string_view kCheckpointPrefix = "checkpoint/";
// "checkpoint/notice" = JSON {"seq","reason","deadline_unix_ms","stop"}:
// the program-wide checkpoint notice (program scope, written by the
// launcher only; core/checkpoint_notice.hpp reads and writes it).
inline constexpr std::string_view kCheckpointNotice = "checkpoint/notice";
// "checkpoint/request" = reason: `slipway checkpoint` or a task's agent asks
// the launcher for a notice (program scope); "stop " before the reason asks
// for a stop after it.
inline constexpr std::string_view kCheckpointRequest = "checkpoint/request";

// "epoch/<node>" = decimal epoch: the epoch a world node's replicas run
// now (program scope, written by the launcher as each epoch starts).
inline constexpr std::string_view kEpochPrefix = "epoch/";
std::string epoch(std::string_view node);

// "live/<node>" = "size=N min=MIN max=MAX replicas=LIST": an elastic node's
// live set now (program scope, written by the launcher at start and at
// every resize; LIST as core::format_replica_list writes it).
inline constexpr std::string_view kLivePrefix = "live/";
std::string live(std::string_view node);

// "scale/<node>" = "COUNT[ WHO]": a request for COUNT replicas of an
// elastic node (program scope; written by `slipway scale` or any task, read
// by the launcher).
inline constexpr std::string_view kScalePrefix = "scale/";
std::string scale(std::string_view node);

// "satellite/<job id>" = Slurm node name: a satellite job's keeper (`slipway
// keeper`) runs on that host, so the job is granted (program scope; written
// by the keeper, read by the controller; docs/elastic.md).
inline constexpr std::string_view kSatellitePrefix = "satellite/";
std::string satellite(std::string_view job_id);

// "observe/...": what the launcher publishes for those who watch the program.
inline constexpr std::string_view kObservePrefix = "observe/";
// "observe/status" = JSON: the status document (observe/program_status.hpp,
// docs/observe.md), put by the launcher at most once a second; read by
// `slipway status --json` and `slipway top`.
inline constexpr std::string_view kObserveStatus = "observe/status";
// "usage/<node>.<replica>" = JSON {"cpu_seconds","rss_bytes","processes","unix_ms"}:
// a task's CPU time and memory, put by its agent every 2 s (program scope).
inline constexpr std::string_view kUsagePrefix = "usage/";
std::string usage(std::string_view node, std::uint32_t replica);
// "replay/...": keys of the replay shards.
inline constexpr std::string_view kReplayPrefix = "replay/";
// "replay/stats/<node>.<replica>" = JSON (docs/observe.md): a replay
// shard's tables, put by the shard every 2 s (program scope).
inline constexpr std::string_view kReplayStatsPrefix = "replay/stats/";
std::string replay_stats(std::string_view node, std::uint32_t replica);

// "ucx/<node>/<replica>" = UCX worker address: a courier endpoint.
inline constexpr std::string_view kUcxPrefix = "ucx/";
std::string ucx_address(std::string_view node, std::uint32_t replica);
// "ucx-replicas/<node>" = count: how many replicas of a courier node there are.
inline constexpr std::string_view kUcxReplicasPrefix = "ucx-replicas/";
std::string ucx_replicas(std::string_view node);

// "pmix/<nspace>/modex/<rank>", "pmix/<nspace>/pub/<key>",
// "pmix/<nspace>/<kind>/<signature>/<n>": the PMIx server hosts' shared
// state, per namespace (each epoch of an MPI world is a namespace of its
// own, so nothing of an earlier epoch is read).
inline constexpr std::string_view kPmixPrefix = "pmix/";
std::string pmix_modex(std::string_view nspace, std::uint32_t rank);
std::string pmix_published(std::string_view nspace, std::string_view key);
std::string pmix_collective(std::string_view nspace, std::string_view kind,
                            std::string_view signature, std::uint64_t n);

}  // namespace slipway::core::keys
