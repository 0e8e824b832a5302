// The task agent's entry point, shared by the `slipway-exec` program and the
// local launcher (which forks agents instead of executing slipway-exec).
//
// Contract: agent_main() completes `options` from the environment as
// docs/exec.md describes (SLIPWAY_WIRE_TIMEOUT overrides wire_timeout;
// SLIPWAY_ADVERTISE_HOST, else the caller's advertise_host, else this host's
// address toward SLIPWAY_RDZV, gives advertise_host; the rendezvous from SLIPWAY_RDZV/SLIPWAY_RDZV_TOKEN;
// framework = "mpi" tasks get a PMIx server when built with PMIx) and runs
// the agent; it returns the process exit code. Agent signals must already be
// blocked (block_agent_signals) and no other thread may exist.
//
// fork_agent() runs agent_main in a forked copy of the calling process and
// returns the child's pid. The child first closes every inherited
// descriptor above stderr, names itself "slipway-agent" (ps -o comm; its
// command line stays the caller's), moves to a process group of its own (so Ctrl-C
// reaches the launcher only), asks for SIGTERM when its parent dies, blocks
// the agent's signals, adds `env` ("NAME=VALUE", later entries win) to its
// environment, and never returns: it _exits with the agent's code. The
// caller may have other threads; the child touches none of their state
// (one caveat: the launcher's rendezvous thread logs warnings through
// spdlog, and a fork in the middle of such a line would leave spdlog's lock
// held in the child, where only a throwing rendezvous callback logs).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/exec/task_agent.hpp"

namespace slipway::exec {

int agent_main(const core::Plan& plan, AgentOptions options);

// The replica a task of a multi-replica Slurm step runs, as decimal text:
// SLIPWAY_REPLICA (set by slipway.so in slurmstepd), else
// SLIPWAY_REPLICA_BASE + SLURM_PROCID (spank::replica_for_task, the
// plugin's own rule and bound); nothing when neither is set or a value is
// not a plain number within that bound.
std::optional<std::string> replica_from_environment();

pid_t fork_agent(const core::Plan& plan, const AgentOptions& options,
                 const std::vector<std::string>& env);

}  // namespace slipway::exec
