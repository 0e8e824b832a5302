// TaskRunner: the one life cycle of a task, whoever runs it: slipway-exec
// (node_types/exec: one task, or the colocated tasks of one unit) and the
// local launcher (the tasks it runs in its own process). Event driven and
// never blocking: its owner's loop polls it (base::PollSource), reaps its
// children and hands them over (reaped()), and takes the ends
// (take_ended()).
//
// Contract, for each task started on an attempt:
//  1. prepare() holds the task's named ports (held_port.hpp; a world's task
//     from the half of the range its epoch's parity gives, epoch_port_range,
//     a task in none from the whole range) and joins the
//     control plane (task_control.hpp) with them published, for every task
//     given in one trip; start() without prepare() makes the trip alone.
//     start() throws (nothing is left held or joined) when the task cannot
//     be prepared or joined; it returns the task's id otherwise.
//  2. While addresses the task needs (core::required_addresses) are
//     missing, it waits for them without blocking: key_changed() (or the
//     control's notices) re-reads them; after `wire_timeout` the task ends
//     with status 1 and "NODE.REPLICA: SPEAKER: timed out after ..." on
//     stderr, naming what is missing.
//  3. Once resolved, the environment is built (inherited_env, then what
//     the starter added, then core::task_environment for the task's
//     attempt and epoch, and every hook's additions over both:
//     launch_environment.hpp),
//     hooks run (task_hooks.hpp), the ports still held are released, and
//     the command starts in a process group of its own (task_command.hpp),
//     its output relayed behind "NODE.REPLICA: " and logged (task_output.hpp).
//     A command that cannot start ends the task with status 127 and the
//     reason on stderr.
//  4. One grace rule: a terminating signal (SIGTERM, SIGINT, SIGHUP,
//     SIGQUIT) given through signal()/signal_all() goes to the command's
//     process group and SIGKILL follows `grace` later if it still runs;
//     other signals are only forwarded; a task still waiting for addresses
//     ends at once with 128 + signal. When the command has exited, what is
//     left in its group gets SIGTERM, and SIGKILL min(grace, 2 s) later if
//     it still holds the output open; the output is relayed to its end.
//     A control plane that is lost (task_control.hpp) kills every command
//     at once, with no grace: a replacement may be starting elsewhere.
//  5. Then hooks' after_exit run, a failed task's log is kept, the task
//     leaves the control plane with its shell code (128 + signal when
//     killed), and its end is ready for take_ended().
// The destructor SIGKILLs the process group of every command still running.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "slipway/base/held_port.hpp"
#include "slipway/base/poll_source.hpp"
#include "slipway/base/process.hpp"
#include "slipway/core/environment.hpp"
#include "slipway/core/plan.hpp"
#include "slipway/tasks/task_control.hpp"
#include "slipway/tasks/task_hooks.hpp"
#include "slipway/tasks/task_id.hpp"

namespace slipway::tasks {

struct TaskRunnerOptions {
  std::string speaker = "slipway";  // who reports: "NODE.REPLICA: SPEAKER: message"
  std::string log_dir;              // empty: no log files
  std::uint64_t log_limit = std::uint64_t{64} << 20;  // each log's bound (0: none)
  std::string advertise_host;       // empty: this host's name
  std::string address_dir;          // the live address files (SLIPWAY_ADDR_FILE_*); empty: none
  std::string run_dir;              // the run directory (SLIPWAY_STATE_DIR, SLIPWAY_NOTICE_FILE); empty: none
  std::chrono::milliseconds wire_timeout{300000};
  std::chrono::milliseconds grace{5000};
  bool launcher_binds_gpus = true;
  std::vector<std::string> inherited_env;  // what every command inherits ("NAME=value")
  std::vector<TaskHooks*> hooks;           // not owned; called in order
};

struct TaskStart {
  std::uint32_t task = 0;   // index in Plan::tasks (the runner's plan)
  core::TaskLaunch launch;  // attempt and epoch
  core::EnvMap env;         // what the starter adds to the inherited environment
  // The program as it runs now (core::live_plan: elastic nodes at their
  // live size), which the task's environment describes; it must hold the
  // task. Empty: the runner's plan.
  std::shared_ptr<const core::Plan> live_plan{};
};

struct TaskEnd {
  TaskId id;
  std::uint32_t task = 0;  // index in Plan::tasks
  base::ExitStatus status;
};

class TaskRunner final : public base::PollSource {
 public:
  TaskRunner(const core::Plan& plan, TaskControl& control, TaskRunnerOptions options);
  ~TaskRunner() override;
  TaskRunner(const TaskRunner&) = delete;
  TaskRunner& operator=(const TaskRunner&) = delete;

  // How many descriptors a running task holds in the runner's process: its
  // two output pipes, its log and its held ports.
  static std::size_t descriptors_per_task(const core::Task& task) { return 3 + task.ports.size(); }

  void prepare(const std::vector<TaskStart>& tasks);
  TaskId start(const TaskStart& task);
  void signal(TaskId id, int sig);
  void signal_all(int sig);
  // A child was reaped: returns whether it was one of the commands.
  bool reaped(pid_t pid, const base::ExitStatus& status);
  void key_changed(const std::string& key);
  // A checkpoint notice (core/checkpoint_notice.hpp's JSON) for task `id`,
  // or every running task when `id` is none: each running task that has not
  // had this notice's seq gets it in its SLIPWAY_NOTICE_FILE (when the
  // runner has a run directory) and then, when its node says so, its
  // notice_signal. A text that is no notice is reported and dropped.
  void checkpoint_notice(TaskId id, const std::string& notice);
  std::vector<TaskEnd> take_ended();
  // The pid of task `id`'s command while it runs (started, not reaped yet).
  std::optional<pid_t> running_command(TaskId id) const;
  bool idle() const { return tasks_.empty() && ended_.empty(); }

  void watch(std::vector<pollfd>& fds) override;
  void watched(const pollfd* fds, std::size_t count) override;
  std::optional<Clock::time_point> deadline() const override;

 private:
  struct Task;
  struct Prepared;
  std::unique_ptr<Task> make_task(const TaskStart& start);
  void launch(Task& t);
  std::vector<std::pair<std::string, std::string>> expected_address_files(const Task& t) const;
  bool address_files_ready(Task& t);
  static constexpr std::chrono::milliseconds kAddressFileRecheck{20};
  static constexpr std::chrono::milliseconds kAddressFileWait{5000};
  void resolve_and_launch(Task& t);
  void finish(Task& t, base::ExitStatus status);
  void fail(Task& t, int code, const std::string& message);
  void fire_timeouts(Clock::time_point now);
  void on_notices();
  void report(const core::Task& task, const std::string& message) const;

  const core::Plan& plan_;
  TaskControl& control_;
  TaskRunnerOptions options_;
  std::string host_name_;
  std::uint64_t next_id_ = 0;
  std::map<TaskId, std::unique_ptr<Task>> tasks_;
  std::map<std::uint32_t, std::unique_ptr<Prepared>> prepared_;  // by task index
  std::map<pid_t, TaskId> by_command_;
  std::vector<TaskEnd> ended_;
  std::vector<TaskId> polled_;  // the task of each output descriptor watch() added
  bool polled_control_ = false;
};

// The ports a task of `epoch` draws from: even epochs the lower half of
// `range`, odd ones the upper half, so that no port of a world (rank 0's
// master port above all) is ever the one its previous epoch held.
base::PortRange epoch_port_range(base::PortRange range, std::uint32_t epoch);

// Why a task gave up waiting for addresses: "timed out after N s waiting
// for the address of learner.0 port 'grpc', ...; check that ..."
std::string wire_timeout_message(std::chrono::milliseconds timeout,
                                 const std::vector<core::AddressRef>& missing);

}  // namespace slipway::tasks
