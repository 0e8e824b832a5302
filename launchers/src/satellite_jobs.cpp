// Satellite jobs' sbatch line and bookkeeping (satellite_jobs.hpp).
#include "slipway/launch/satellite_jobs.hpp"

#include <cctype>

#include "slipway/core/contract.hpp"

namespace slipway::launch {
namespace {

// The keeper's command for sbatch --wrap (a /bin/sh script): the path
// quoted for the shell.
std::string keeper_script(const std::string& slipway) {
  std::string quoted = "'";
  for (char c : slipway) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return "exec " + quoted + "' keeper";
}

}  // namespace

std::vector<std::string> satellite_sbatch_command(const SatelliteRequest& r) {
  std::vector<std::string> argv{"sbatch",
                                "--parsable",
                                "--job-name=" + r.program + ":satellite:" + r.node,
                                "--nodes=1",
                                "--ntasks=1",
                                "--cpus-per-task=" + std::to_string(r.cpus),
                                "--no-requeue",
                                "--output=" + r.log_path};
  if (r.gpus > 0) argv.push_back("--gres=gpu:" + std::to_string(r.gpus));
  if (r.mem_mb > 0) argv.push_back("--mem=" + std::to_string(r.mem_mb) + "M");
  if (!r.partition.empty()) argv.push_back("--partition=" + r.partition);
  if (!r.account.empty()) argv.push_back("--account=" + r.account);
  if (!r.qos.empty()) argv.push_back("--qos=" + r.qos);
  if (!r.constraint.empty()) argv.push_back("--constraint=" + r.constraint);
  argv.push_back("--wrap=" + keeper_script(r.slipway_path));
  return argv;
}

std::optional<std::string> parse_job_id(std::string_view output) {
  std::size_t end = 0;
  while (end < output.size() && end < 20 && std::isdigit(static_cast<unsigned char>(output[end]))) ++end;
  if (end == 0 || end == 20) return std::nullopt;
  if (end < output.size() && output[end] != ';' && output[end] != '\n') return std::nullopt;
  return std::string(output.substr(0, end));
}

bool satellite_drops_variable(std::string_view entry) {
  if (entry.starts_with("SLURM_")) return !entry.starts_with("SLURM_CONF=");
  const std::string token = std::string(core::env::kToken) + "=";
  return entry.starts_with(token);
}

void SatelliteBook::submitted(const std::string& id, const std::string& node, Clock::time_point now) {
  jobs_[id] = Job{id, node, now, {}, std::nullopt, false};
}

void SatelliteBook::submitted_for(const std::string& id, const std::string& node, std::size_t unit,
                                  Clock::time_point now) {
  jobs_[id] = Job{id, node, now, {}, unit, true};
}

std::uint32_t SatelliteBook::pending_for(const std::string& node) const {
  std::uint32_t n = 0;
  for (const auto& [id, job] : jobs_) n += job.node == node && job.host.empty() && !job.replacement;
  return n;
}

std::optional<std::string> SatelliteBook::newest_pending(const std::string& node) const {
  const Job* newest = nullptr;
  for (const auto& [id, job] : jobs_) {
    if (job.node == node && job.host.empty() && !job.replacement && (!newest || job.since >= newest->since)) {
      newest = &job;
    }
  }
  if (!newest) return std::nullopt;
  return newest->id;
}

const SatelliteBook::Job* SatelliteBook::granted(const std::string& id, const std::string& host) {
  auto it = jobs_.find(id);
  if (it == jobs_.end() || !it->second.host.empty() || host.empty()) return nullptr;
  it->second.host = host;
  return &it->second;
}

void SatelliteBook::bind(const std::string& id, std::size_t unit) {
  if (auto it = jobs_.find(id); it != jobs_.end()) it->second.unit = unit;
}

const SatelliteBook::Job* SatelliteBook::of_unit(std::size_t unit) const {
  for (const auto& [id, job] : jobs_) {
    if (job.unit == unit) return &job;
  }
  return nullptr;
}

void SatelliteBook::swap_units(std::size_t a, std::size_t b) {
  for (auto& [id, job] : jobs_) {
    if (job.unit == a) {
      job.unit = b;
    } else if (job.unit == b) {
      job.unit = a;
    }
  }
}

std::optional<SatelliteBook::Job> SatelliteBook::remove(const std::string& id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  Job job = std::move(it->second);
  jobs_.erase(it);
  return job;
}

std::vector<SatelliteBook::Job> SatelliteBook::expired(Clock::time_point now,
                                                       std::chrono::milliseconds wait) const {
  std::vector<Job> out;
  for (const auto& [id, job] : jobs_) {
    if (job.host.empty() && job.since + wait <= now) out.push_back(job);
  }
  return out;
}

std::optional<SatelliteBook::Clock::time_point> SatelliteBook::deadline(std::chrono::milliseconds wait) const {
  std::optional<Clock::time_point> next;
  for (const auto& [id, job] : jobs_) {
    if (job.host.empty() && (!next || job.since + wait < *next)) next = job.since + wait;
  }
  return next;
}

std::vector<std::string> SatelliteBook::ids() const {
  std::vector<std::string> out;
  for (const auto& [id, job] : jobs_) out.push_back(id);
  return out;
}

}  // namespace slipway::launch
