// Live sets and the plan of the replicas that run now (live_plan.hpp).
#include "slipway/core/live_plan.hpp"

#include <algorithm>
#include <charconv>

namespace slipway::core {

Plan live_plan(const Plan& plan, const LiveSets& live) {
  Plan out;
  out.program = plan.program;
  out.hosts = plan.hosts;
  out.tasks.reserve(plan.tasks.size());
  for (const Task& task : plan.tasks) {
    auto set = live.find(task.node);
    if (set != live.end() && !std::binary_search(set->second.begin(), set->second.end(), task.replica)) {
      continue;
    }
    Task kept = task;
    kept.id = static_cast<std::uint32_t>(out.tasks.size());
    if (set != live.end()) kept.replicas = static_cast<std::uint32_t>(set->second.size());
    out.tasks.push_back(std::move(kept));
  }
  set_ranks(out);
  return out;
}

std::string format_replica_list(const std::vector<std::uint32_t>& replicas) {
  std::string out;
  for (std::size_t i = 0; i < replicas.size();) {
    std::size_t j = i;
    while (j + 1 < replicas.size() && replicas[j + 1] == replicas[j] + 1) ++j;
    if (!out.empty()) out += ",";
    if (j - i >= 2) {
      out += std::to_string(replicas[i]) + "-" + std::to_string(replicas[j]);
      i = j + 1;
    } else {
      out += std::to_string(replicas[i]);
      ++i;
    }
  }
  return out;
}

namespace {

std::optional<std::uint32_t> number(std::string_view text) {
  std::uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::vector<std::uint32_t>> parse_replica_list(std::string_view text,
                                                             std::uint32_t limit) {
  std::vector<std::uint32_t> out;
  if (text.empty()) return out;
  while (true) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const auto dash = item.find('-');
    auto first = number(item.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : number(item.substr(dash + 1));
    if (!first || !last || *first > *last || *last >= limit) return std::nullopt;
    for (std::uint32_t r = *first;; ++r) {
      out.push_back(r);
      if (r == *last) break;
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string format_live_set(const std::string& node, const std::vector<std::uint32_t>& replicas) {
  return node + "=" + format_replica_list(replicas);
}

std::optional<LiveSetArgument> parse_live_set(std::string_view text, std::uint32_t limit) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) return std::nullopt;
  auto replicas = parse_replica_list(text.substr(eq + 1), limit);
  if (!replicas) return std::nullopt;
  return LiveSetArgument{std::string(text.substr(0, eq)), std::move(*replicas)};
}

std::string format_live_record(const LiveRecord& record) {
  return "size=" + std::to_string(record.replicas.size()) + " min=" + std::to_string(record.min) +
         " max=" + std::to_string(record.max) + " replicas=" + format_replica_list(record.replicas);
}

std::optional<LiveRecord> parse_live_record(std::string_view text, std::uint32_t limit) {
  LiveRecord record;
  std::optional<std::uint32_t> size, min, max;
  bool has_replicas = false;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    const std::size_t eq = word.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = word.substr(0, eq), value = word.substr(eq + 1);
    if (name == "size") {
      size = number(value);
      if (!size) return std::nullopt;
    } else if (name == "min") {
      min = number(value);
      if (!min) return std::nullopt;
    } else if (name == "max") {
      max = number(value);
      if (!max) return std::nullopt;
    } else if (name == "replicas") {
      auto list = parse_replica_list(value, limit);
      if (!list) return std::nullopt;
      record.replicas = std::move(*list);
      has_replicas = true;
    }
  }
  if (!size || !min || !max || !has_replicas || *size != record.replicas.size()) return std::nullopt;
  record.min = *min;
  record.max = *max;
  return record;
}

}  // namespace slipway::core
