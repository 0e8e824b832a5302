// The task agent (`slipway-exec`): the process that runs the tasks of one
// launch unit (one task, or a colocate group) with the task runner
// (tasks/task_runner.hpp), the same locally and under Slurm.
//
// Contract: every task of `options.tasks` goes through the runner's life
// cycle (ports held, joined, addresses awaited, environment, hooks, command,
// output relayed behind "NODE.REPLICA: " and logged, one grace rule,
// reported), its problems reported as "NODE.REPLICA: slipway-exec: ...".
// The agent is the commands' subreaper; it forwards SIGTERM, SIGINT,
// SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to every command (the first four
// stop them: SIGKILL `grace` later), and a program stop or the task's stop
// key to all of them. When one colocated command fails, the others are
// stopped; tasks that are units of their own (`separate_units`: replicas
// sharing a Slurm step) run on whatever one of them does, each reporting its
// own end. At the end no descendant is left, and the agent returns the
// first non-zero shell code of its tasks in the order given (128 + signal
// for one killed), else 0. While a command runs, the usage of its process
// tree is put as usage/NODE.REPLICA every 2 s (usage_publisher.hpp; a put
// that fails is said and never stops the task). A task that cannot be
// prepared or joined (a bad name, a port that cannot be bound, a refused
// join) is reported, stops the others, and the agent returns 1. Signals must be blocked by the
// caller (block_agent_signals) before any thread is started.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/tasks/task_control.hpp"
#include "slipway/tasks/task_hooks.hpp"

namespace slipway::exec {

struct AgentOptions {
  std::vector<std::string> tasks;  // "node.replica" of each task to run
  // Each task is a launch unit of its own: one that fails leaves the
  // others running. Else the tasks are one unit (a colocate group).
  bool separate_units = false;
  std::uint32_t attempt = 0;
  std::uint32_t epoch = 0;         // of the tasks' world (0 outside worlds)
  std::string log_dir;             // empty: no log files
  std::string address_dir;         // the live address files (SLIPWAY_ADDR_FILE_*); empty: none
  std::string run_dir;             // the run directory (state and notice files); empty: none
  std::uint64_t log_limit = std::uint64_t{64} << 20;  // each log's bound (task_log.hpp; 0: none)
  std::chrono::milliseconds wire_timeout{300000};
  std::chrono::milliseconds grace{5000};
  bool launcher_binds_gpus = true;
  // Started by the Slurm controller as a job step (--slurm-step): Slurm's
  // SIGTERM reached the commands already and is left to the launcher's
  // checkpoint notice for tasks that hear notices; SIGUSR1/SIGUSR2 (the time
  // limit's warning) ask the launcher for a notice and a stop
  // (docs/resume.md).
  bool slurm_step = false;
  // The address peers reach this host at, when the plan gives none.
  // Empty: this host's name.
  std::string advertise_host;
  std::vector<tasks::TaskHooks*> hooks;  // not owned; called in order (task_hooks.hpp)
};

// Blocks the signals the agent handles through a signalfd, and ignores
// SIGPIPE (output to a closed terminal is dropped). Call first thing in
// main, before any thread exists.
void block_agent_signals();

// Runs the tasks to completion over `control`; returns the exit code for
// the process. Output reaches the terminal without ever blocking the agent
// (terminal_stream.hpp); the agent holds the program's secret, so it makes
// no core dump (disable_core_dumps in process.hpp).
int run_agent(const core::Plan& plan, const AgentOptions& options, tasks::TaskControl& control);

}  // namespace slipway::exec
