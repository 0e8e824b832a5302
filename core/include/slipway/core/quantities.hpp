// Parsing of the quantity strings of a topology: memory sizes ("16G"),
// Slurm time limits ("1-12:00:00") and replica counts ("2:8").
//
// Contract: each returns std::nullopt and sets `reason` (what to write
// instead) on malformed or out-of-range input; results are within the
// bounds of core/src/limits.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "slipway/core/topology.hpp"

namespace slipway::core {

// "512M", "16G", "1T", "2048K" (binary units, case-insensitive) or plain
// digits = MiB. Kibibytes round up to whole MiB. Zero is rejected.
std::optional<std::uint64_t> parse_memory_mb(std::string_view text, std::string& reason);

// Slurm's forms: "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S". Seconds
// round up to whole minutes. Zero is rejected.
std::optional<std::uint32_t> parse_time_minutes(std::string_view text, std::string& reason);

// "N" or "MIN:MAX" with 1 <= MIN <= MAX <= limits::kMaxReplicas.
std::optional<ReplicaRange> parse_replica_range(std::string_view text, std::string& reason);

// 16384 -> "16G", 1536 -> "1536M" (the largest unit that divides exactly;
// Slurm's --mem accepts it).
std::string format_memory_mb(std::uint64_t mb);

// 90 -> "1:30:00", 2160 -> "1-12:00:00" (Slurm's --time forms).
std::string format_time_minutes(std::uint32_t minutes);

}  // namespace slipway::core
