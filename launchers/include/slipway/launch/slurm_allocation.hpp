// What a Slurm allocation gives the controller, read from the environment
// Slurm sets inside it (salloc, sbatch, or srun's own allocation), for
// plain and heterogeneous jobs.
//
// Contract: pure functions over an environment lookup, unit-tested. Host
// lists use Slurm's syntax ("fn[1-3,7],gpu[01-02]"); CPU counts use its
// run-length form ("4(x3),2"). Malformed input throws std::invalid_argument
// naming the variable and the text.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "slipway/core/plan.hpp"

namespace slipway::launch {

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup process_environment();

std::vector<std::string> expand_hostlist(std::string_view list);
std::vector<std::uint32_t> expand_counts(std::string_view counts);

// One component of the job (one for a plain job, SLURM_HET_SIZE for a
// heterogeneous one).
struct SlurmComponent {
  int het_group = -1;  // -1 for a plain job
  std::string job_id;  // this component's own id (SLURM_JOB_ID_HET_GROUP_N)
  std::string partition;
  std::vector<std::string> hosts;
  std::vector<std::uint32_t> cpus;  // per host
  std::uint32_t gpus_per_host = 0;
  std::uint64_t mem_per_host_mb = 0;  // 0: not known
};

struct SlurmJob {
  std::string job_id;
  std::vector<SlurmComponent> components;
};

// Reads the job from SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_JOB_CPUS_PER_NODE,
// SLURM_JOB_PARTITION, SLURM_GPUS_PER_NODE, SLURM_MEM_PER_NODE (and their
// _HET_GROUP_N forms with SLURM_HET_SIZE). Nothing when not in a job.
std::optional<SlurmJob> read_slurm_job(const EnvLookup& env);

// GPUs per host from `scontrol show job -d ID` output (its per-node lines
// "Nodes=fn[4-5] CPU_IDs=... GRES=gpu:2(IDX:0-1)"): Slurm sets no variable
// for --gres allocations in salloc. Hosts without GPUs are absent.
std::map<std::string, std::uint32_t> gpus_from_scontrol(std::string_view job_detail);

// Slurm's NodeAddr of `host` from `scontrol show node` output (one or more
// nodes, one line each or Slurm's multi-line form); nothing when absent.
std::optional<std::string> node_address_from_scontrol(std::string_view node_detail,
                                                      std::string_view host);

// Slurm's MaxStepCount (the most job steps one job may start) from
// slurm.conf's text (its line "MaxStepCount=40000", the key in any case)
// or `scontrol show config` output ("MaxStepCount            = 40000").
// Nothing when no line names it or its value is not a number (Slurm's
// default, kSlurmMaxStepCount, then holds for slurm.conf).
std::optional<std::uint64_t> max_step_count_from_config(std::string_view config);
inline constexpr std::uint64_t kSlurmMaxStepCount = 40000;

// The MaxStepCount of the slurm.conf at `path` (bounded read of 4 MiB; its
// Include files are not read): the line's value, else Slurm's default;
// nothing when the file cannot be read (a configless client).
std::optional<std::uint64_t> max_step_count_of_slurm_conf(const std::string& path);

// Fills gpus_per_host of each component that has none from `gpus`
// (component hosts looked up by name).
void apply_gpus(SlurmJob& job, const std::map<std::string, std::uint32_t>& gpus);

// The hosts of the job as a planner allocation: one Host per distinct host
// (a host in two components appears once, with its first component's
// numbers), partitions recorded per host.
core::Allocation allocation_of(const SlurmJob& job);

}  // namespace slipway::launch
