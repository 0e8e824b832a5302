// The environment a task's command starts with: the agent's own, with
// slipway's variables laid over it. Pure functions, unit-tested.
#pragma once

#include <string>
#include <vector>

#include "slipway/core/environment.hpp"

namespace slipway::exec {

// Copies a NULL-terminated environ array ("NAME=value" entries).
std::vector<std::string> inherited_environment(char** environ_array);

// Sets each variable of `added` in `env`, replacing an entry of the same
// name (entries keep their position; new ones are appended in order).
void merge_environment(std::vector<std::string>& env, const core::EnvMap& added);

}  // namespace slipway::exec
