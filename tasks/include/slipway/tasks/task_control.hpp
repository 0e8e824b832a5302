// TaskControl: the program's control plane as the task runner sees it, for
// the tasks it runs: join, publish, read peers' addresses, report a pid and
// an end, hear stops. Two implementations: over the rendezvous client, a
// member per task, all on one connection (rendezvous_task_control.hpp,
// slipway-exec),
// and over the launcher's in-process rendezvous server (the launcher's
// server_task_control.hpp).
//
// Contract:
// - join() joins every request as the member (node, replica, attempt) in
//   one trip where the implementation can, publishes `published` as that
//   member's task-scoped keys (withdrawn when it fails), and returns, per
//   request in order, an error or the values of `wanted` known now.
// - A key of `wanted` that is published later is announced: either by a
//   notice (pollable() becomes readable; take_notices() returns it), or by
//   the owner calling TaskRunner::key_changed. read() gives the values of
//   keys now (nothing: not published).
// - started() records the command's pid; ended() is the last call for a
//   task: it leaves with that exit code. Both may be sent later, in order
//   (flush() sends what is pending; join() sends it first).
// - client() is the task's own member (a channel of the agent's connection
//   to the rendezvous), for hooks that speak to
//   the rendezvous themselves (the PMIx server host); a request with
//   needs_client gets one where the implementation can make it, else its
//   join fails.
// - Checkpoint notices (the program key checkpoint/notice) name the task
//   whose member connection heard them.
// - Notices of a stop name one task (the launcher asked it to stop through
//   stop/NODE/REPLICA) or none (the program is stopping, or the connection
//   to the rendezvous was lost: a task never outlives its launcher).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/tasks/task_id.hpp"

namespace slipway::rendezvous {
class Client;
}

namespace slipway::tasks {

struct JoinRequest {
  TaskId id;
  const core::Task* task = nullptr;
  std::uint32_t attempt = 0;
  std::vector<std::pair<std::string, std::string>> published;  // key, value
  std::vector<std::string> wanted;
  bool needs_client = false;
};

struct JoinResult {
  std::string error;  // empty: joined
  std::vector<std::optional<std::string>> values;  // of `wanted`, in order
  bool ok() const { return error.empty(); }
};

struct ControlNotice {
  enum class Kind { key_set, stop, checkpoint } kind = Kind::key_set;
  std::string key;     // key_set
  TaskId task;         // stop, checkpoint: the task, or none (every task)
  std::string reason;  // stop; checkpoint: the notice (core/checkpoint_notice.hpp)
  bool lost = false;   // stop: the rendezvous is gone or out of reach
};

class TaskControl {
 public:
  virtual ~TaskControl() = default;
  virtual std::vector<JoinResult> join(const std::vector<JoinRequest>& requests) = 0;
  virtual std::vector<std::optional<std::string>> read(TaskId task,
                                                       const std::vector<std::string>& keys) = 0;
  virtual void started(TaskId task, pid_t pid) = 0;
  virtual void ended(TaskId task, int exit_code) = 0;
  virtual void flush() {}
  virtual rendezvous::Client* client(TaskId /*task*/) { return nullptr; }
  virtual int pollable() const { return -1; }
  virtual std::vector<ControlNotice> take_notices() { return {}; }
};

}  // namespace slipway::tasks
