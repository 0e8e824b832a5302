// A task's usage from its process tree: the /proc parsers, the walk and
// the usage key's JSON (see process_usage.hpp).
#include "slipway/exec/process_usage.hpp"

#include <algorithm>
#include <charconv>
#include <deque>
#include <nlohmann/json.hpp>
#include <unordered_set>

namespace slipway::exec {

namespace {

// The next field of `text` separated by spaces, moving past it.
std::string_view next_field(std::string_view& text) {
  const std::size_t start = text.find_first_not_of(' ');
  if (start == std::string_view::npos) {
    text = {};
    return {};
  }
  text.remove_prefix(start);
  const std::size_t end = std::min(text.find(' '), text.size());
  std::string_view field = text.substr(0, end);
  text.remove_prefix(end);
  return field;
}

template <typename Number>
std::optional<Number> number(std::string_view text) {
  Number value{};
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view line) {
  // "PID (COMM) STATE PPID ...": after the last ')', field 3 onwards.
  const std::size_t close = line.rfind(')');
  if (close == std::string_view::npos || line.find('(') > close) return std::nullopt;
  std::string_view rest = line.substr(close + 1);
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' ')) rest.remove_suffix(1);
  // Fields 3 to 24 of proc(5): state is [0], utime [11] ... rss [21].
  std::string_view fields[22];
  for (auto& field : fields) {
    field = next_field(rest);
    if (field.empty()) return std::nullopt;
  }
  if (fields[0].size() != 1) return std::nullopt;
  ProcStat stat;
  stat.state = fields[0][0];
  const auto utime = number<std::uint64_t>(fields[11]);
  const auto stime = number<std::uint64_t>(fields[12]);
  const auto cutime = number<std::int64_t>(fields[13]);
  const auto cstime = number<std::int64_t>(fields[14]);
  const auto threads = number<std::int64_t>(fields[17]);
  const auto rss = number<std::int64_t>(fields[21]);
  if (!utime || !stime || !cutime || !cstime || !threads || !rss) return std::nullopt;
  const auto positive = [](std::int64_t value) { return static_cast<std::uint64_t>(std::max<std::int64_t>(value, 0)); };
  stat.utime = *utime;
  stat.stime = *stime;
  stat.cutime = positive(*cutime);
  stat.cstime = positive(*cstime);
  stat.num_threads = positive(*threads);
  stat.rss_pages = positive(*rss);
  return stat;
}

std::vector<pid_t> parse_pid_list(std::string_view text, std::size_t limit) {
  std::vector<pid_t> pids;
  std::string_view rest = text;
  while (pids.size() < limit) {
    // Any whitespace separates (the kernel writes spaces and a final newline).
    const std::size_t start = rest.find_first_not_of(" \n\t");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const std::size_t end = std::min(rest.find_first_of(" \n\t"), rest.size());
    if (const auto pid = number<pid_t>(rest.substr(0, end)); pid && *pid > 0) pids.push_back(*pid);
    rest.remove_prefix(end);
  }
  return pids;
}

std::optional<ProcessUsage> tree_usage(pid_t root, ProcSource& source, long ticks_per_second, long page_size,
                                       TreeLimits limits) {
  if (ticks_per_second <= 0 || page_size <= 0) return std::nullopt;
  std::uint64_t ticks = 0;
  ProcessUsage usage;
  std::unordered_set<pid_t> seen{root};
  std::deque<pid_t> pending{root};
  std::size_t children_reads = 0;
  while (!pending.empty()) {
    const pid_t pid = pending.front();
    pending.pop_front();
    const auto text = source.stat(pid);
    const auto stat = text ? parse_proc_stat(*text) : std::nullopt;
    if (!stat) {
      if (pid == root) return std::nullopt;
      continue;  // exited since its parent listed it
    }
    ticks += stat->utime + stat->stime + stat->cutime + stat->cstime;
    usage.rss_bytes += stat->rss_pages * static_cast<std::uint64_t>(page_size);
    ++usage.processes;
    // A child is listed under the thread that made it; most processes have one.
    const std::size_t reads_left = limits.max_children_reads - children_reads;
    const std::vector<pid_t> tids =
        stat->num_threads <= 1 ? std::vector<pid_t>{pid} : source.threads(pid, reads_left);
    for (pid_t tid : tids) {
      if (children_reads >= limits.max_children_reads) break;
      ++children_reads;
      const auto listed = source.children(pid, tid);
      if (!listed) continue;
      for (pid_t child : parse_pid_list(*listed, limits.max_processes)) {
        if (seen.size() >= limits.max_processes) break;
        if (seen.insert(child).second) pending.push_back(child);
      }
    }
  }
  usage.cpu_seconds = static_cast<double>(ticks) / static_cast<double>(ticks_per_second);
  return usage;
}

std::string usage_json(const ProcessUsage& usage, std::int64_t unix_ms) {
  nlohmann::json document = {{"cpu_seconds", usage.cpu_seconds},
                             {"rss_bytes", usage.rss_bytes},
                             {"processes", usage.processes},
                             {"unix_ms", unix_ms}};
  return document.dump();
}

}  // namespace slipway::exec
