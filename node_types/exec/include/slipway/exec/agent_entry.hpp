// The task agent's entry point: the `slipway-exec` program.
//
// Contract: agent_main() completes `options` from the environment as
// docs/contract.md describes (SLIPWAY_WIRE_TIMEOUT overrides wire_timeout;
// SLIPWAY_ADVERTISE_HOST, else the caller's advertise_host, else this host's
// address toward SLIPWAY_RDZV, gives advertise_host; the rendezvous from SLIPWAY_RDZV/SLIPWAY_TOKEN;
// framework = "mpi" tasks get a PMIx server when built with PMIx) and runs
// the agent; it returns the process exit code. Agent signals must already be
// blocked (block_agent_signals) and no other thread may exist.
#pragma once

#include <optional>
#include <string>

#include "slipway/core/plan.hpp"
#include "slipway/exec/task_agent.hpp"

namespace slipway::exec {

int agent_main(const core::Plan& plan, AgentOptions options);

// The replica a task of a multi-replica Slurm step runs, as decimal text:
// SLIPWAY_REPLICA (set by slipway.so in slurmstepd), else
// SLIPWAY_REPLICA_BASE + SLURM_PROCID (core::replica_for_task, the
// plugin's own rule and bound); nothing when neither is set or a value is
// not a plain number within that bound.
std::optional<std::string> replica_from_environment();

}  // namespace slipway::exec
