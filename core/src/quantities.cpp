// Memory, time and replica quantity strings (quantities.hpp).
#include "slipway/core/quantities.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <vector>

#include "limits.hpp"

namespace slipway::core {
namespace {

// Whole string of decimal digits, at most 12 of them.
std::optional<std::uint64_t> parse_digits(std::string_view s) {
  if (s.empty() || s.size() > 12) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) return parts;
    start = pos + 1;
  }
}

}  // namespace

std::optional<std::uint64_t> parse_memory_mb(std::string_view text, std::string& reason) {
  reason = "not a size; write a size such as \"512M\", \"16G\" or \"1T\" (K, M, G, T), or an integer of MiB";
  if (text.empty()) return std::nullopt;
  std::uint64_t kib_per_unit = 1024;  // plain digits: MiB
  std::string_view digits = text;
  switch (std::toupper(static_cast<unsigned char>(text.back()))) {
    case 'K': kib_per_unit = 1; break;
    case 'M': kib_per_unit = 1024; break;
    case 'G': kib_per_unit = 1024 * 1024; break;
    case 'T': kib_per_unit = 1024 * 1024 * 1024; break;
    default: kib_per_unit = 0; break;
  }
  if (kib_per_unit != 0) {
    digits.remove_suffix(1);
  } else {
    kib_per_unit = 1024;
  }
  const auto value = parse_digits(digits);
  if (!value) return std::nullopt;
  if (*value == 0) {
    reason = "must be more than 0; leave `mem` out to request no memory";
    return std::nullopt;
  }
  const std::uint64_t max_kib = limits::kMaxMemMb * 1024;
  if (*value > max_kib / kib_per_unit) {
    reason = "more than the limit of 1024T";
    return std::nullopt;
  }
  return (*value * kib_per_unit + 1023) / 1024;
}

std::optional<std::uint32_t> parse_time_minutes(std::string_view text, std::string& reason) {
  reason = "not a time; write minutes (\"90\"), \"H:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" as for Slurm's --time";
  std::uint64_t days = 0, hours = 0, minutes = 0, seconds = 0;
  std::string_view clock = text;
  const bool has_days = text.find('-') != std::string_view::npos;
  if (has_days) {
    const std::size_t dash = text.find('-');
    const auto d = parse_digits(text.substr(0, dash));
    if (!d) return std::nullopt;
    days = *d;
    clock = text.substr(dash + 1);
  }
  const auto parts = split(clock, ':');
  if (parts.size() > 3) return std::nullopt;
  std::vector<std::uint64_t> values;
  for (std::string_view p : parts) {
    const auto v = parse_digits(p);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  if (has_days) {  // D-H, D-H:M, D-H:M:S
    hours = values[0];
    if (values.size() > 1) minutes = values[1];
    if (values.size() > 2) seconds = values[2];
    if (hours >= 24 || minutes >= 60 || seconds >= 60) return std::nullopt;
  } else if (values.size() == 1) {  // M
    minutes = values[0];
  } else if (values.size() == 2) {  // M:S
    minutes = values[0];
    seconds = values[1];
    if (seconds >= 60) return std::nullopt;
  } else {  // H:M:S
    hours = values[0];
    minutes = values[1];
    seconds = values[2];
    if (minutes >= 60 || seconds >= 60) return std::nullopt;
  }
  const std::uint64_t total = days * 24 * 60 + hours * 60 + minutes + (seconds > 0 ? 1 : 0);
  if (total == 0) {
    reason = "must be more than 0; leave `time` out to use the partition's default";
    return std::nullopt;
  }
  if (total > limits::kMaxTimeMinutes) {
    reason = "more than the limit of 366 days";
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(total);
}

std::optional<ReplicaRange> parse_replica_range(std::string_view text, std::string& reason) {
  reason = "not a count; write a count (3) or an elastic range \"MIN:MAX\" (\"2:8\")";
  const auto parts = split(text, ':');
  if (parts.size() > 2) return std::nullopt;
  const auto lo = parse_digits(parts[0]);
  const auto hi = parts.size() == 2 ? parse_digits(parts[1]) : lo;
  if (!lo || !hi) return std::nullopt;
  if (*lo == 0) {
    reason = parts.size() == 2 ? "MIN is 0; an elastic node needs at least 1 replica"
                               : "must be at least 1";
    return std::nullopt;
  }
  if (*lo > *hi) {
    reason = "MIN is greater than MAX; write \"MIN:MAX\" with MIN <= MAX";
    return std::nullopt;
  }
  if (*hi > limits::kMaxReplicas) {
    reason = "more than the limit of " + std::to_string(limits::kMaxReplicas) + " replicas";
    return std::nullopt;
  }
  return ReplicaRange{static_cast<std::uint32_t>(*lo), static_cast<std::uint32_t>(*hi)};
}

std::string format_memory_mb(std::uint64_t mb) {
  if (mb != 0 && mb % (1024 * 1024) == 0) return std::to_string(mb / (1024 * 1024)) + "T";
  if (mb != 0 && mb % 1024 == 0) return std::to_string(mb / 1024) + "G";
  return std::to_string(mb) + "M";
}

std::string format_time_minutes(std::uint32_t minutes) {
  const std::uint32_t days = minutes / (24 * 60);
  const std::uint32_t hours = minutes / 60 % 24;
  const std::uint32_t mins = minutes % 60;
  char buffer[32];
  if (days > 0) {
    std::snprintf(buffer, sizeof buffer, "%u-%02u:%02u:00", days, hours, mins);
  } else {
    std::snprintf(buffer, sizeof buffer, "%u:%02u:00", hours, mins);
  }
  return buffer;
}

}  // namespace slipway::core
