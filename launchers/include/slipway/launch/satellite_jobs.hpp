// Satellite jobs: the extra Slurm jobs the controller holds to grow an
// elastic node past its allocation (docs/elastic.md). One job per replica:
// it runs `slipway keeper`, which announces the job once Slurm has started
// it (the program key satellite/JOBID = its host) and ends when the
// program's rendezvous goes away; the replica runs in it as an ordinary
// step (srun --jobid=JOBID). A satellite is submitted for a node that
// wants to grow (bound to the slot it hosts once granted), or for one unit
// that lost its host and finds no room in the job (a replacement, bound to
// that unit from the start). The controller cancels (scancel) a satellite
// it no longer needs, one that pends past [program.elastic]
// satellite_wait, and every one when the program ends.
//
// Contract: satellite_sbatch_command, parse_job_id and
// satellite_drops_variable are pure; SatelliteBook is I/O-free bookkeeping
// of the jobs pending and granted, given the time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slipway::launch {

struct SatelliteRequest {
  std::string program;
  std::string node;          // the elastic node a replica of which it will run
  std::string slipway_path;  // the keeper: `SLIPWAY keeper`
  std::string log_path;      // the job's output (Slurm's %j allowed)
  std::uint32_t cpus = 1;    // what one replica takes
  std::uint32_t gpus = 0;
  std::uint64_t mem_mb = 0;  // 0: not asked
  // Empty: not given (the node's own, else the allocation's partition).
  std::string partition;
  std::string account;
  std::string qos;
  std::string constraint;
};

// sbatch's argv: --parsable, --job-name=PROGRAM:satellite:NODE, one host,
// one task of the replica's CPUs (GPUs as --gres=gpu:N, memory as --mem),
// no requeue, the keeper as the batch script (--wrap).
std::vector<std::string> satellite_sbatch_command(const SatelliteRequest& request);

// The job id in sbatch --parsable's output ("123", "123;cluster", with a
// newline); nothing when there is none.
std::optional<std::string> parse_job_id(std::string_view output);

// Whether the controller's environment entry "NAME=VALUE" stays out of a
// satellite's submission: its allocation's SLURM_* variables (SLURM_CONF
// stays) and the program's secret (the keeper reads the run directory).
bool satellite_drops_variable(std::string_view entry);

class SatelliteBook {
 public:
  using Clock = std::chrono::steady_clock;
  struct Job {
    std::string id;
    std::string node;
    Clock::time_point since;               // submitted
    std::string host;                      // empty while pending
    std::optional<std::size_t> unit;       // the unit it hosts, once granted (a replacement's: always)
    bool replacement = false;              // submitted for `unit`, which lost its host
  };

  // A job submitted for `node` to grow.
  void submitted(const std::string& id, const std::string& node, Clock::time_point now);
  // A job submitted for `unit` (a unit of `node`), which lost its host.
  void submitted_for(const std::string& id, const std::string& node, std::size_t unit, Clock::time_point now);
  // Pending jobs of `node` submitted to grow it (replacements left out).
  std::uint32_t pending_for(const std::string& node) const;
  std::size_t size() const { return jobs_.size(); }
  // The pending growth job of `node` submitted last: the first to cancel.
  std::optional<std::string> newest_pending(const std::string& node) const;
  // A pending job started on `host`: the job (its host set now), or
  // nothing when it is not a pending job of this book (cancelled meanwhile,
  // or not ours).
  const Job* granted(const std::string& id, const std::string& host);
  void bind(const std::string& id, std::size_t unit);
  // The job bound to `unit` (pending, for a replacement, or granted).
  const Job* of_unit(std::size_t unit) const;
  // The jobs bound to `a` and `b` trade units (a world's lost rank takes
  // over the host of another rank's slot).
  void swap_units(std::size_t a, std::size_t b);
  // Every job, by id.
  const std::map<std::string, Job>& jobs() const { return jobs_; }
  // Forgets the job; returns it.
  std::optional<Job> remove(const std::string& id);
  // Pending jobs submitted `wait` or more ago.
  std::vector<Job> expired(Clock::time_point now, std::chrono::milliseconds wait) const;
  // When the next pending job expires.
  std::optional<Clock::time_point> deadline(std::chrono::milliseconds wait) const;
  std::vector<std::string> ids() const;

 private:
  std::map<std::string, Job> jobs_;  // by id
};

}  // namespace slipway::launch
