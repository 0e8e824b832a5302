// Starting one task's command, the same whoever runs the task.
//
// Contract: start_command() starts `wrapper + command` of the node with
// exactly `env` in the node's workdir, in a process group of its own that
// gets SIGKILL when the calling thread ends, its output into `output`
// (whose write ends are then closed here). Throws std::exception when it
// cannot start: errno's text, or what is wrong (a workdir that is no
// directory, a command that is a directory).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/tasks/task_output.hpp"

namespace slipway::tasks {

pid_t start_command(const core::NodeSpec& node, std::vector<std::string> env, TaskOutput& output);

}  // namespace slipway::tasks
