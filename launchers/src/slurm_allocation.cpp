// Reading a Slurm allocation from the environment (see header).
#include "slipway/launch/slurm_allocation.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>

namespace slipway::launch {
namespace {

std::uint32_t parse_uint(std::string_view text, std::string_view what) {
  std::uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw std::invalid_argument("bad number '" + std::string(text) + "' in " + std::string(what));
  }
  return value;
}

// Splits on commas that are not inside brackets.
std::vector<std::string_view> split_top_level(std::string_view list) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i] == '[') ++depth;
    if (list[i] == ']') --depth;
    if (list[i] == ',' && depth == 0) {
      parts.push_back(list.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) throw std::invalid_argument("unbalanced brackets in host list '" + std::string(list) + "'");
  parts.push_back(list.substr(start));
  return parts;
}

void expand_one(std::string_view pattern, std::vector<std::string>& out) {
  auto open = pattern.find('[');
  if (open == std::string_view::npos) {
    if (!pattern.empty()) out.emplace_back(pattern);
    return;
  }
  auto close = pattern.find(']', open);
  if (close == std::string_view::npos) {
    throw std::invalid_argument("unbalanced brackets in host list '" + std::string(pattern) + "'");
  }
  std::string_view prefix = pattern.substr(0, open);
  std::string_view ranges = pattern.substr(open + 1, close - open - 1);
  std::string_view rest = pattern.substr(close + 1);
  std::size_t start = 0;
  while (start <= ranges.size()) {
    auto comma = ranges.find(',', start);
    std::string_view range = ranges.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    auto dash = range.find('-');
    std::string_view low_text = range.substr(0, dash);
    std::string_view high_text = dash == std::string_view::npos ? low_text : range.substr(dash + 1);
    std::uint32_t low = parse_uint(low_text, "host list");
    std::uint32_t high = parse_uint(high_text, "host list");
    if (high < low || high - low > 100000) {
      throw std::invalid_argument("bad range '" + std::string(range) + "' in host list");
    }
    for (std::uint32_t n = low; n <= high; ++n) {
      std::string number = std::to_string(n);
      if (number.size() < low_text.size()) number.insert(0, low_text.size() - number.size(), '0');
      expand_one(std::string(prefix) + number + std::string(rest), out);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
}

}  // namespace

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

std::vector<std::string> expand_hostlist(std::string_view list) {
  std::vector<std::string> hosts;
  for (auto part : split_top_level(list)) expand_one(part, hosts);
  return hosts;
}

std::vector<std::uint32_t> expand_counts(std::string_view counts) {
  std::vector<std::uint32_t> out;
  for (auto part : split_top_level(counts)) {
    auto paren = part.find("(x");
    std::uint32_t value = parse_uint(part.substr(0, paren), "CPU counts");
    std::uint32_t repeat = 1;
    if (paren != std::string_view::npos) {
      if (part.back() != ')') throw std::invalid_argument("bad count '" + std::string(part) + "'");
      repeat = parse_uint(part.substr(paren + 2, part.size() - paren - 3), "CPU counts");
      if (repeat > 100000) throw std::invalid_argument("bad count '" + std::string(part) + "'");
    }
    out.insert(out.end(), repeat, value);
  }
  return out;
}

std::optional<SlurmJob> read_slurm_job(const EnvLookup& env) {
  auto job_id = env("SLURM_JOB_ID");
  if (!job_id) return std::nullopt;
  SlurmJob job{*job_id, {}};
  int groups = 0;
  if (auto het = env("SLURM_HET_SIZE")) groups = static_cast<int>(parse_uint(*het, "SLURM_HET_SIZE"));
  for (int g = 0; g < std::max(groups, 1); ++g) {
    std::string suffix = groups > 0 ? "_HET_GROUP_" + std::to_string(g) : "";
    auto get = [&](const std::string& name) { return env(name + suffix); };
    SlurmComponent c;
    c.het_group = groups > 0 ? g : -1;
    c.job_id = groups > 0 ? get("SLURM_JOB_ID").value_or(*job_id) : *job_id;
    auto nodelist = get("SLURM_JOB_NODELIST");
    if (!nodelist) throw std::invalid_argument("SLURM_JOB_NODELIST" + suffix + " is not set");
    c.hosts = expand_hostlist(*nodelist);
    auto cpus = get("SLURM_JOB_CPUS_PER_NODE");
    c.cpus = cpus ? expand_counts(*cpus) : std::vector<std::uint32_t>{};
    c.cpus.resize(c.hosts.size(), c.cpus.empty() ? 1 : c.cpus.back());
    c.partition = get("SLURM_JOB_PARTITION").value_or("");
    if (auto gpus = get("SLURM_GPUS_PER_NODE")) {
      // "2" or "tesla:2"
      auto colon = gpus->rfind(':');
      c.gpus_per_host = parse_uint(colon == std::string::npos ? *gpus : gpus->substr(colon + 1),
                                   "SLURM_GPUS_PER_NODE");
    }
    if (auto mem = get("SLURM_MEM_PER_NODE")) c.mem_per_host_mb = parse_uint(*mem, "SLURM_MEM_PER_NODE");
    job.components.push_back(std::move(c));
  }
  return job;
}

std::map<std::string, std::uint32_t> gpus_from_scontrol(std::string_view detail) {
  std::map<std::string, std::uint32_t> gpus;
  std::size_t line_start = 0;
  while (line_start < detail.size()) {
    auto line_end = detail.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = detail.size();
    std::string_view line = detail.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    auto nodes_at = line.find("Nodes=");
    auto gres_at = line.find(" GRES=");
    if (nodes_at == std::string_view::npos || gres_at == std::string_view::npos) continue;
    std::string_view nodes = line.substr(nodes_at + 6);
    nodes = nodes.substr(0, nodes.find(' '));
    std::string_view gres = line.substr(gres_at + 6);
    gres = gres.substr(0, gres.find(' '));
    std::uint32_t count = 0;
    // gpu:2(IDX:0-1) or gpu:tesla:2(IDX:0-1), possibly among other GRES.
    for (auto item : split_top_level(gres)) {
      if (item.rfind("gpu", 0) != 0) continue;
      item = item.substr(0, item.find('('));
      auto colon = item.rfind(':');
      if (colon != std::string_view::npos) count += parse_uint(item.substr(colon + 1), "GRES");
    }
    if (count == 0) continue;
    for (auto& host : expand_hostlist(nodes)) gpus[host] = count;
  }
  return gpus;
}

std::optional<std::string> node_address_from_scontrol(std::string_view detail,
                                                      std::string_view host) {
  // Each node's record starts at "NodeName=NAME "; its NodeAddr follows.
  const std::string start = "NodeName=" + std::string(host) + " ";
  auto at = detail.find(start);
  while (at != std::string_view::npos && at > 0 && !std::isspace(static_cast<unsigned char>(detail[at - 1]))) {
    at = detail.find(start, at + 1);
  }
  if (at == std::string_view::npos) return std::nullopt;
  auto next = detail.find("NodeName=", at + start.size());
  std::string_view record = detail.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at);
  auto addr = record.find("NodeAddr=");
  if (addr == std::string_view::npos) return std::nullopt;
  std::string_view value = record.substr(addr + 9);
  value = value.substr(0, value.find_first_of(" \n"));
  if (value.empty()) return std::nullopt;
  return std::string(value);
}

std::optional<std::uint64_t> max_step_count_from_config(std::string_view config) {
  std::size_t start = 0;
  while (start < config.size()) {
    std::size_t end = config.find('\n', start);
    if (end == std::string_view::npos) end = config.size();
    std::string_view line = config.substr(start, end - start);
    start = end + 1;
    line = line.substr(0, line.find('#'));
    line.remove_prefix(std::min(line.size(), line.find_first_not_of(" \t")));
    constexpr std::string_view kKey = "maxstepcount";
    if (line.size() <= kKey.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < kKey.size(); ++i) {
      same = same && std::tolower(static_cast<unsigned char>(line[i])) == kKey[i];
    }
    if (!same) continue;
    std::string_view rest = line.substr(kKey.size());
    rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
    if (rest.empty() || rest.front() != '=') continue;
    rest.remove_prefix(1);
    rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
    rest = rest.substr(0, rest.find_first_of(" \t\r"));
    std::uint64_t value = 0;
    auto [at, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
    if (ec != std::errc() || at != rest.data() + rest.size() || rest.empty()) return std::nullopt;
    return value;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> max_step_count_of_slurm_conf(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string text(4u << 20, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return max_step_count_from_config(text).value_or(kSlurmMaxStepCount);
}

void apply_gpus(SlurmJob& job, const std::map<std::string, std::uint32_t>& gpus) {
  for (auto& c : job.components) {
    if (c.gpus_per_host > 0) continue;
    for (const auto& host : c.hosts) {
      if (auto it = gpus.find(host); it != gpus.end()) {
        c.gpus_per_host = std::max(c.gpus_per_host, it->second);
      }
    }
  }
}

core::Allocation allocation_of(const SlurmJob& job) {
  core::Allocation allocation;
  std::map<std::string, std::size_t> seen;
  for (const auto& c : job.components) {
    for (std::size_t i = 0; i < c.hosts.size(); ++i) {
      auto [it, inserted] = seen.emplace(c.hosts[i], allocation.hosts.size());
      if (!inserted) {
        auto& parts = allocation.hosts[it->second].partitions;
        if (!c.partition.empty()) parts.push_back(c.partition);
        continue;
      }
      core::Host host;
      host.name = c.hosts[i];
      host.cpus = c.cpus[i];
      host.gpus = c.gpus_per_host;
      host.mem_mb = c.mem_per_host_mb;
      if (!c.partition.empty()) host.partitions.push_back(c.partition);
      allocation.hosts.push_back(std::move(host));
    }
  }
  return allocation;
}

}  // namespace slipway::launch
