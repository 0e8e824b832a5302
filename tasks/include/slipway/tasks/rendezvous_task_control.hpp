// RendezvousTaskControl: the task runner's control plane (task_control.hpp)
// over the rendezvous client, as slipway-exec uses it: each task joins as a
// member (node, replica, attempt; this host and process), all of them on one
// connection (rendezvous::AgentConnection: one socket and two threads for
// any number of replicas), publishes its ports as task-scoped keys (withdrawn if it dies),
// has its wanted keys pushed to it (no polling; at most 256 waits
// outstanding per task, the next sent as answers come), and hears "program
// stopping" and its own stop key stop/NODE/REPLICA. A lost connection to
// the rendezvous counts as a stop of every task: a task must not outlive
// its launcher. Answers arrive on the client's threads and are handed to
// the runner's thread as notices (an eventfd).
//
// Contract: join() connects (once, then again only after the connection was
// lost) and may throw nothing; a task that cannot join gets the client's
// error. client() is the task's member (its channel on the shared
// connection), kept
// until the control is destroyed (a PMIx server host may still hold it
// after the task ended). join() joins all its requests at once (every
// Hello, then every member's subscriptions, stop-key read and addresses,
// each batch pipelined on the one connection). ended() sends the leave with
// the exit code and does not wait for its reply; flush() and the
// destructor wait (10 s at most) until every leave is answered, so that none is lost with the
// process. A rendezvous that is gone by then is ignored (nobody is left to
// tell).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "slipway/tasks/task_control.hpp"

namespace slipway::rendezvous {
class AgentConnection;
}

namespace slipway::tasks {

class RendezvousTaskControl final : public TaskControl {
 public:
  // `wait_timeout`: how long a wait for a wanted key may last (the
  // runner's wire timeout).
  RendezvousTaskControl(std::string endpoint, std::string token,
                        std::chrono::milliseconds wait_timeout);
  // Endpoint and secret from SLIPWAY_RDZV and SLIPWAY_TOKEN; throws
  // std::runtime_error naming the variable that is missing.
  static std::unique_ptr<RendezvousTaskControl> from_environment(
      std::chrono::milliseconds wait_timeout);
  ~RendezvousTaskControl() override;

  std::vector<JoinResult> join(const std::vector<JoinRequest>& requests) override;
  std::vector<std::optional<std::string>> read(TaskId task,
                                               const std::vector<std::string>& keys) override;
  void started(TaskId /*task*/, pid_t /*pid*/) override {}
  void ended(TaskId task, int exit_code) override;
  void flush() override;  // until every leave sent is answered
  rendezvous::Client* client(TaskId task) override;
  int pollable() const override;
  std::vector<ControlNotice> take_notices() override;

 private:
  struct Inbox;
  struct Member;
  void send_waits(TaskId id, Member& member);

  std::string endpoint_;
  std::string token_;
  std::chrono::milliseconds wait_timeout_;
  std::shared_ptr<Inbox> inbox_;
  std::shared_ptr<rendezvous::AgentConnection> agent_;  // carries every member
  std::map<TaskId, std::unique_ptr<Member>> members_;
};

}  // namespace slipway::tasks
