// Starting one task's command (see task_command.hpp).
#include "slipway/tasks/task_command.hpp"

#include <signal.h>

#include "slipway/base/process.hpp"

namespace slipway::tasks {

pid_t start_command(const core::NodeSpec& node, std::vector<std::string> env, TaskOutput& output) {
  base::SpawnOptions spawn_options;
  spawn_options.argv = *node.wrapper;
  spawn_options.argv.insert(spawn_options.argv.end(), node.command->begin(), node.command->end());
  spawn_options.env = std::move(env);
  spawn_options.workdir = *node.workdir;
  spawn_options.new_process_group = true;
  spawn_options.parent_death_signal = SIGKILL;
  spawn_options.group_dies_with_parent = true;  // its children in its group too
  spawn_options.stdout_fd = output.stdout_write();
  spawn_options.stderr_fd = output.stderr_write();
  pid_t pid = base::spawn(spawn_options);
  output.close_write_ends();
  return pid;
}

}  // namespace slipway::tasks
