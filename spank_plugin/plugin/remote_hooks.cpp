// slipway.so in slurmstepd: for the tasks of a slipway step (SLIPWAY_PROGRAM
// in the step's environment) with SLIPWAY_REPLICA_BASE set and no
// SLIPWAY_REPLICA, sets SLIPWAY_REPLICA = base + the task's global id (see
// slipway/core/task_replica.hpp). Every other step is left untouched.
#include <cstdint>
#include <string>

#include "plugin_state.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/core/task_replica.hpp"
#include "slipway/spank/handover.hpp"

namespace slipway::spank::plugin {
namespace {

char kOptName[] = "program";
char kOptArg[] = "FILE";
char kOptUsage[] = "run the slipway program (TOML topology) FILE";

// Registered here too so that srun and slurmstepd agree on the plugin's
// options (the hand-over never forwards --program to a step).
struct spank_option remote_program_option = {kOptName, kOptArg, kOptUsage, 1, 0, nullptr};

bool job_env_has(spank_t sp, const char* name) {
  char probe[2];
  const spank_err_t rc = spank_getenv(sp, name, probe, sizeof probe);
  return rc == ESPANK_SUCCESS || rc == ESPANK_NOSPACE;
}

}  // namespace

int remote_init(spank_t sp, int /*ac*/, char** /*av*/) {
  spank_option_register(sp, &remote_program_option);
  return 0;
}

int remote_task_init(spank_t sp) {
  if (!job_env_has(sp, core::env::kProgram) || job_env_has(sp, core::env::kReplica)) {
    return 0;
  }
  char base[32];
  const spank_err_t rc = spank_getenv(sp, core::env::kReplicaBase, base, sizeof base);
  if (rc == ESPANK_ENV_NOEXIST) {
    return 0;
  }
  std::uint32_t task_id = 0;
  if (rc != ESPANK_SUCCESS || spank_get_item(sp, S_TASK_GLOBAL_ID, &task_id) != ESPANK_SUCCESS) {
    report_error("cannot read SLIPWAY_REPLICA_BASE or the task id of this step");
    return -1;
  }
  const auto replica = core::replica_for_task(base, task_id);
  if (!replica) {
    const std::string msg = std::string(core::env::kReplicaBase) + "='" + base +
                            "' is not a replica index (a decimal number up to " +
                            std::to_string(core::kMaxReplica) + ")";
    report_error(msg.c_str());
    return -1;
  }
  if (spank_setenv(sp, core::env::kReplica, replica->c_str(), 1) != ESPANK_SUCCESS) {
    report_error("cannot set SLIPWAY_REPLICA for the task");
    return -1;
  }
  return 0;
}

}  // namespace slipway::spank::plugin
