// The task agent (`slipway-exec`): the launch layer around the user's
// command, the same locally and under Slurm.
//
// Contract, for each task it runs (several when nodes are colocated):
//  1. binds the task's named ports and holds them (held_port.hpp);
//  2. publishes them through its Wiring;
//  3. waits, up to `wire_timeout`, until every address the task needs is
//     published (required_addresses), naming what is missing on timeout;
//  4. builds the environment (inherited + core::task_environment + what the
//     launcher adds) and starts `wrapper + command` in the node's workdir,
//     in a process group of its own that dies with the agent;
//  5. prefixes each output line with "NODE.REPLICA: " (and logs it raw to
//     LOG_DIR/NODE.REPLICA.log), forwards SIGTERM/SIGINT/SIGHUP/SIGQUIT/
//     SIGUSR1/SIGUSR2 to the command's process group, turns a program stop
//     into SIGTERM, and SIGKILLs what is left `grace` later;
//  5b. for replica 0 of a framework = "horovod" node, keeps the
//     `horovod_rendezvous` port and serves Horovod's gloo rendezvous store
//     on it while the task runs (horovod_rendezvous.hpp);
//  6. leaves no descendant behind, reports the exit status through leave()
//     and returns it as a shell code (128 + signal when killed).
// When one colocated command fails, the others are stopped and the agent
// returns the failure. Signals must be blocked by the caller
// (block_agent_signals) before any thread is started.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/exec/task_hooks.hpp"
#include "slipway/exec/wiring.hpp"

namespace slipway::exec {

struct AgentOptions {
  std::vector<std::string> tasks;  // "node.replica" of each task to run
  std::uint32_t attempt = 0;
  std::string log_dir;             // empty: no log files
  std::uint64_t log_limit = std::uint64_t{64} << 20;  // each log's bound (task_log.hpp; 0: none)
  std::chrono::milliseconds wire_timeout{300000};
  std::chrono::milliseconds grace{5000};
  bool launcher_binds_gpus = true;
  // The address peers reach this host at, when the plan gives none.
  // Empty: this host's name.
  std::string advertise_host;
  std::vector<TaskHooks*> hooks;  // not owned; called in order (task_hooks.hpp)
};

// Blocks the signals the agent handles through a signalfd, and ignores
// SIGPIPE (output to a closed terminal is dropped). Call first thing in
// main, before any thread exists.
void block_agent_signals();

// Runs the tasks to completion; returns the exit code for the process.
// Output reaches the terminal without ever blocking the agent
// (terminal_stream.hpp); the agent holds the program's secret, so it
// makes no core dump (disable_core_dumps in process.hpp).
// Errors before the command starts (a bad task name, a wiring timeout) are
// reported on stderr, prefixed with the task's name, and return 1.
int run_agent(const core::Plan& plan, const AgentOptions& options, const WiringFactory& wiring);

}  // namespace slipway::exec
