// HorovodTaskHooks: the task hook (task_hooks.hpp) that serves Horovod's
// gloo rendezvous store (horovod_rendezvous.hpp) for a framework =
// "horovod" node, in whichever process runs its replica 0 (slipway-exec or
// the local launcher): that task's `horovod_rendezvous` port is kept, not
// handed to the command, and served while the command runs.
//
// Contract: before_start of replica 0 of a horovod node takes the port's
// socket and starts serving it (the store sized by the node's scopes);
// after_exit of that task stops serving. Other tasks are left alone.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "slipway/tasks/horovod_rendezvous.hpp"
#include "slipway/tasks/task_hooks.hpp"

namespace slipway::tasks {

class HorovodTaskHooks final : public TaskHooks {
 public:
  void before_start(const TaskContext& context, std::vector<base::HeldPort>& ports,
                    core::EnvMap& env) override;
  void after_exit(const TaskContext& context, int exit_code) override;

 private:
  std::map<std::string, std::unique_ptr<HorovodRendezvousServer>> servers_;  // by node
};

}  // namespace slipway::tasks
