// InlineTasks: the tasks of a local run that the launcher runs itself, in
// its own event loop, instead of through a forked task agent (docs/local.md,
// "Tasks the launcher runs itself").
//
// Contract: a task runs inline when it is alone in its launch unit (not
// colocated) and its node's framework is neither "mpi" (its agent hosts a
// PMIx server) nor "horovod" (replica 0's agent serves Horovod's store).
// For such a task, prepare() and start():
//  1. bind its named ports and hold them (held_port.hpp), and join the
//     rendezvous as a member with no connection (Server::join_local), its
//     addresses published as its task keys; prepare() does this for every
//     task starting together in one trip to the rendezvous, which then
//     reads the addresses each needs (so tasks handling each other find
//     each other at once); start() without prepare() makes the trip alone;
//  2. while some are missing, waits for them without blocking the loop:
//     key_changed() re-reads them, and after `wire_timeout` the task fails
//     with the agent's message naming what is missing;
//  3. starts the command exactly as an agent does (task_command.hpp: the
//     same environment, output prefixes and log file), with the launcher's
//     environment plus `env` as the inherited one; its ports are released
//     just before.
// start() returns the task's id (above kMaxPid), which signal() and
// reported ends name. Changes the rendezvous needs not answer (a command's
// pid, a task's end) are sent together, by take_ended() and before the
// next join. When its command is reaped (reaped()), the task's
// output is relayed to the end, SIGTERM goes to what is left in its process
// group (SIGKILL min(grace, 2 s) later, when it still holds the output
// open), it leaves the rendezvous with the shell code of its status (a
// failed task's addresses are withdrawn), and its end is ready for
// take_ended(). A signal to a task still waiting for addresses ends it
// with 128 + signal, as an interrupted agent does.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/base/process.hpp"
#include "slipway/launch/launch_units.hpp"
#include "slipway/rendezvous/server.hpp"


namespace slipway::launch {

struct InlineTaskOptions {
  std::string log_dir;
  std::string advertise_host;  // empty: this host's name
  std::chrono::milliseconds wire_timeout{300000};
  std::chrono::milliseconds grace{5000};
  std::uint64_t log_limit = std::uint64_t{64} << 20;  // each task log's bound (0: none)
};

class InlineTasks {
 public:
  using Clock = std::chrono::steady_clock;

  InlineTasks(const core::Plan& plan, rendezvous::Server& server, InlineTaskOptions options);
  ~InlineTasks();
  InlineTasks(const InlineTasks&) = delete;
  InlineTasks& operator=(const InlineTasks&) = delete;

  static bool can_run(const core::Plan& plan, const LaunchUnit& unit);

  // Tasks (index in Plan::tasks, attempt) about to start(). A task that
  // cannot be prepared has its error kept for start().
  void prepare(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& tasks);
  // Throws std::exception when the task cannot start (nothing is left held
  // or joined then).
  pid_t start(std::uint32_t task, std::uint32_t attempt, const std::vector<std::string>& env);
  bool owns(pid_t id) const { return tasks_.count(id) != 0; }
  void signal(pid_t id, int sig);

  // A child was reaped: when it is one of our commands, finish its task.
  void reaped(pid_t pid, const base::ExitStatus& status);
  void key_changed(const std::string& key);
  void watch(std::vector<pollfd>& fds);
  void watched(const pollfd* fds, std::size_t count);
  std::optional<Clock::time_point> deadline() const;
  // Tasks that ended since the last call: (id, status), in order. Also
  // sends the changes the rendezvous has not heard yet.
  std::vector<std::pair<pid_t, base::ExitStatus>> take_ended();

 private:
  struct Task;
  struct Prepared {
    std::unique_ptr<Task> task;  // nullptr: `error` says why
    std::string error;
  };
  std::unique_ptr<Task> make_task(std::uint32_t index, std::uint32_t attempt);
  void flush();
  void launch(Task& t);
  void finish(Task& t, base::ExitStatus status);
  void fire_timeouts(Clock::time_point now);

  const core::Plan& plan_;
  rendezvous::Server& server_;
  InlineTaskOptions options_;
  std::string host_name_;
  std::vector<std::string> base_env_;  // the launcher's environment
  pid_t next_id_ = 0;
  std::map<pid_t, std::unique_ptr<Task>> tasks_;  // by id
  std::map<std::uint32_t, Prepared> prepared_;     // by task index
  std::map<pid_t, pid_t> by_command_;             // command pid -> id
  std::vector<std::pair<pid_t, base::ExitStatus>> ended_;
  std::vector<pid_t> polled_;  // the task of each descriptor watch() added
  std::vector<rendezvous::Server::LocalChange> changes_;  // not sent yet
};

}  // namespace slipway::launch
