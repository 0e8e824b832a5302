// The batch script `slipway sbatch` writes for a program: #SBATCH lines for
// its heterogeneous job (batch_components.hpp), a checkpoint notice before
// the time limit (--signal=B:USR1@GRACE), requeue only on request, a job
// array on request (one program run per array task), and a body
// (jobscripts/program-body.sh) that runs `slipway launch TOPOLOGY`.
//
// Contract: render_batch_script is deterministic (no date, host or user in
// the output), so the same program and options give the same script.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "slipway/core/topology.hpp"

namespace slipway::jobscripts {

struct BatchOptions {
  std::string slipway_command;  // what the script runs: normally an absolute path
  std::string topology_path;    // how the script names the topology: normally absolute
  bool requeue = false;         // requeue the whole job when its time is up
  std::uint32_t max_requeues = 10;
  std::uint32_t grace_seconds = 120;  // SIGUSR1 this long before the time limit
  std::string array;                  // sbatch's --array=RANGE; empty: not an array
};

inline constexpr std::uint32_t kMaxGraceSeconds = 65535;  // Slurm's --signal bound
inline constexpr std::size_t kMaxArrayRangeBytes = 1000;

// Empty when `range` is a job array range sbatch accepts by its syntax
// (INDEXES[%LIMIT], INDEXES a comma-separated list of N, N-M or N-M:STEP),
// else what is wrong with it. Whether the cluster's MaxArraySize allows it
// is sbatch's to say.
std::string array_range_error(std::string_view range);

struct BatchScript {
  std::optional<std::string> text;  // set iff error is empty
  std::string error;                // names the node and key, says what to do
};

BatchScript render_batch_script(const core::Program& program, const BatchOptions& options);

// The body template (placeholders {{SLIPWAY}}, {{TOPOLOGY}}, {{PROGRAM}},
// {{REQUEUE}}, {{MAX_REQUEUES}}, {{GRACE}}), embedded at build time.
std::string_view program_body_template();

// `value` quoted for a POSIX shell: 'a b' -> "'a b'", it's -> "'it'\''s'".
std::string shell_quote(std::string_view value);

}  // namespace slipway::jobscripts
