// Internal to slipway.so: the state shared by the per-context hook files and
// their entry points, called by the dispatch in dispatch.cpp. Every function
// here returns a SPANK status (0 ok, -1 error, after reporting it with
// slurm_error) and never lets an exception out.
#pragma once

#include "spank_api.hpp"

#include "slipway/spank/plugin_config.hpp"

namespace slipway::spank::plugin {

struct State {
  PluginConfig config;
};

State& state();

// Reports `message` to the user as "slipway: <message>".
void report_error(const char* message);

// srun/sbatch/salloc (local and allocator contexts).
int client_init(spank_t sp, int ac, char** av);
// slurmstepd (remote context): per-task environment of slipway steps.
int remote_init(spank_t sp, int ac, char** av);
int remote_task_init(spank_t sp);

}  // namespace slipway::spank::plugin
