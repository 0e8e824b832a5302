// Starting one task's command and carrying its output: the part of the
// launch layer the task agent (task_agent.cpp) and the local launcher's
// in-process tasks share, so a task sees the same environment, output
// prefixes and log files whichever runs it.
//
// Contract:
// - added_environment(): what slipway adds to a task's inherited
//   environment: core::task_environment, SLIPWAY_ATTEMPT, and for torch and
//   horovod nodes GLOO_SOCKET_IFNAME/TP_SOCKET_IFNAME naming the interface
//   of `advertise_host` (gloo picks its interface from the host name, which
//   often resolves to loopback on clusters), unless the user set them.
// - TaskOutput: the log LOG_DIR/NODE.REPLICA.log (task_log.hpp, bounded
//   by SLIPWAY_LOG_LIMIT) and two pipes for the command's stdout and
//   stderr. pump() relays what a read end has as whole lines behind
//   "NODE.REPLICA: " (line_prefixer.hpp) to the terminal streams
//   (terminal_stream.hpp) and, raw, to the log; at end-of-file the last
//   partial line is written and that end closes. The read ends are
//   non-blocking. The log is opened for append when the first output
//   comes, or by keep_log() (a task that failed), with a "=== slipway: NAME
//   attempt N on HOST at TIME ===" header, TIME being when the TaskOutput
//   was made: a task that printed nothing and succeeded leaves no empty log
//   behind (creating files is much of what starting a task costs). No log
//   when log_dir is empty.
// - start_command(): starts `wrapper + command` of the node with exactly
//   `env` in the node's workdir, in a process group of its own that gets
//   SIGKILL when the calling thread ends, its output into `output` (whose
//   write ends are then closed here). Throws std::exception when it cannot
//   start: errno's text, or what is wrong (a workdir that is no directory,
//   a command that is a directory).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "slipway/core/environment.hpp"
#include "slipway/core/plan.hpp"
#include "slipway/exec/line_prefixer.hpp"
#include "slipway/exec/task_log.hpp"
#include "slipway/base/unique_fd.hpp"

namespace slipway::exec {

core::EnvMap added_environment(const core::Plan& plan, const core::Task& task,
                               const core::ResolvedAddresses& addresses, std::uint32_t attempt,
                               bool launcher_binds_gpus, const std::string& advertise_host);

class TaskOutput {
 public:
  // `log_limit`: the bound of the log file (0: none).
  TaskOutput(const std::string& task_name, const std::string& log_dir, std::uint32_t attempt,
             const std::string& host, std::uint64_t log_limit = kDefaultLogLimit);
  TaskOutput(const TaskOutput&) = delete;
  TaskOutput& operator=(const TaskOutput&) = delete;

  int stdout_write() const { return out_write_.get(); }
  int stderr_write() const { return err_write_.get(); }
  void close_write_ends();

  // The read ends still open (0, 1 or 2 of them).
  std::vector<int> open_fds() const;
  // Reads once from `fd` (one of open_fds()) and relays it; returns whether
  // it read anything (false at end-of-file, which closes `fd`, and when
  // nothing is there yet).
  bool pump(int fd);
  // Relays everything left, waiting for end-of-file on both read ends.
  void drain();
  bool finished() const { return !out_ && !err_; }
  // Makes sure the log exists (its header at least), e.g. for a failed task.
  void keep_log();

 private:
  std::unique_ptr<TaskLog> log_;
  base::UniqueFd out_, err_, out_write_, err_write_;
  std::unique_ptr<LinePrefixer> out_lines_, err_lines_;
};

pid_t start_command(const core::NodeSpec& node, std::vector<std::string> env, TaskOutput& output);

// The address this host's tasks advertise: SLIPWAY_ADVERTISE_HOST when set,
// else `given` when not empty, else this host's address on the route to
// the rendezvous at `rendezvous_endpoint` (one every peer of the program can
// reach); empty when none of them gives one.
std::string advertise_host_from_environment(const std::string& given,
                                            const std::string& rendezvous_endpoint);

// The host a task's ports are published under: the plan's address for its
// host, else `advertise_host`, else `host_name`.
const std::string& advertised_host(const core::Host& host, const std::string& advertise_host,
                                   const std::string& host_name);

// SLIPWAY_WIRE_TIMEOUT (seconds) when set, else `given`.
std::chrono::milliseconds wire_timeout_from_environment(std::chrono::milliseconds given);

// Why a task gave up waiting for addresses: "timed out after N s waiting
// for the address of learner.0 port 'grpc', ...; check that ..." (the
// message of both the agent and the launcher's in-process tasks).
std::string wire_timeout_message(std::chrono::milliseconds timeout,
                                 const std::vector<core::AddressRef>& missing);

}  // namespace slipway::exec
