// The task hook that serves Horovod's rendezvous store (see
// horovod_task_hooks.hpp).
#include "slipway/tasks/horovod_task_hooks.hpp"

#include "slipway/core/contract.hpp"

namespace slipway::tasks {
namespace {

bool serves_store(const TaskContext& context) {
  return *context.plan.node(context.task).framework == core::Framework::horovod &&
         context.task.replica == 0;
}

}  // namespace

void HorovodTaskHooks::before_start(const TaskContext& context, std::vector<base::HeldPort>& ports,
                                    core::EnvMap& /*env*/) {
  if (!serves_store(context)) return;
  for (auto& port : ports) {
    if (port.name() != core::kHorovodRendezvousPort) continue;
    servers_[context.task.node] = std::make_unique<HorovodRendezvousServer>(
        port.take_socket(),
        HorovodKvStore(HorovodKvStore::scope_sizes(context.plan, context.task.node)));
  }
}

void HorovodTaskHooks::after_exit(const TaskContext& context, int /*exit_code*/) {
  if (serves_store(context)) servers_.erase(context.task.node);
}

}  // namespace slipway::tasks
