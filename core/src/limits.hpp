// Bounds on every count and length slipway reads from a topology or a plan
// file, so that no input can make it allocate or loop without limit.
#pragma once

#include <cstddef>
#include <cstdint>

namespace slipway::core::limits {

inline constexpr std::size_t kMaxTopologyBytes = 16u << 20;  // 16 MiB of TOML
inline constexpr std::size_t kMaxPlanBytes = 256u << 20;     // 256 MiB of plan JSON
inline constexpr std::uint32_t kMaxNodes = 10000;
inline constexpr std::uint32_t kMaxReplicas = 100000;        // per node
inline constexpr std::uint32_t kMaxTasks = 1000000;          // per plan
inline constexpr std::uint32_t kMaxHosts = 100000;
inline constexpr std::uint32_t kMaxCpus = 1u << 16;          // per replica / host
inline constexpr std::uint32_t kMaxGpus = 1024;              // per replica / host
inline constexpr std::uint64_t kMaxMemMb = std::uint64_t{1} << 30;  // 1 PiB
inline constexpr std::uint32_t kMaxRetries = 10000;
inline constexpr std::uint32_t kMaxTimeMinutes = 366u * 24 * 60;
inline constexpr std::size_t kMaxNameLength = 64;            // node, port, group names
inline constexpr std::size_t kMaxListLength = 4096;          // ports, handles, env, argv
inline constexpr std::size_t kMaxStringLength = 64u << 10;   // any one string

// What a task's exec may be given (validate_scale.cpp). Linux refuses one
// "NAME=value" string over 32 pages (MAX_ARG_STRLEN) and all arguments and
// variables over a quarter of the stack limit (2 MiB at the usual 8 MiB).
inline constexpr std::uint64_t kMaxVariableBytes = 32u * 4096;
inline constexpr std::uint64_t kMaxExecBytes = 1u << 20;      // half: the rest is inherited
inline constexpr std::uint64_t kAddressBytes = 22;            // "255.255.255.255:65535,"
inline constexpr std::uint64_t kContractEnvironmentBytes = 4096;  // SLIPWAY_*, framework's
// Of kMaxPlanBytes, what the hosts of the allocation may need (kMaxHosts
// host entries); the nodes and tasks of a valid program fit in the rest.
inline constexpr std::size_t kPlanHostsReserveBytes = 32u << 20;

}  // namespace slipway::core::limits
