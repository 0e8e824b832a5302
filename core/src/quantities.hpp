// Parsing of the quantity strings of a topology: memory sizes ("16G"),
// Slurm time limits ("1-12:00:00") and replica counts ("2:8"). Each returns
// std::nullopt and a reason (what to write instead) on malformed input.
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

}  // namespace slipway::core
