// TaskHooks: how other layers (the PMIx server host, Horovod's rendezvous
// store, channels next) take part in a task's life cycle without the task
// runner knowing them. Whoever makes the runner (slipway-exec's main, the
// local launcher) decides which hooks run; the runner calls them in order.
//
// Contract: needs_client says whether a task needs a member connection of
// its own (TaskControl::client), asked before it joins. before_start runs
// once per task after its addresses are resolved and just before its
// command starts: it may add variables to `env` (the command's
// environment; the node's own `env` still wins where the hook says so), and
// may take the socket of one of the task's held ports to serve it itself
// (HeldPort::take_socket); the ports still held are released to the command
// afterwards. after_exit runs once the command has ended and its process
// group is gone, before the task leaves the control plane; it runs for every
// task before_start ran for. Throwing from before_start fails the task with
// the exception's message.
#pragma once

#include <cstdint>
#include <vector>

#include "slipway/base/held_port.hpp"
#include "slipway/core/environment.hpp"
#include "slipway/core/plan.hpp"

namespace slipway::rendezvous {
class Client;
}

namespace slipway::tasks {

struct TaskContext {
  const core::Plan& plan;
  const core::Task& task;
  core::TaskLaunch launch;
  rendezvous::Client* client;  // the task's member connection, when it has one
};

class TaskHooks {
 public:
  virtual ~TaskHooks() = default;
  virtual bool needs_client(const core::Plan& /*plan*/, const core::Task& /*task*/) const {
    return false;
  }
  virtual void before_start(const TaskContext& context, std::vector<base::HeldPort>& ports,
                            core::EnvMap& env) = 0;
  virtual void after_exit(const TaskContext& context, int exit_code) = 0;
};

}  // namespace slipway::tasks
