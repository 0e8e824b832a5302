// The task agent's entry point: options from the environment, the
// rendezvous wiring and PMIx hooks (see agent_entry.hpp).
#include "slipway/core/contract.hpp"
#include "slipway/exec/agent_entry.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <system_error>

#include "slipway/base/local_address.hpp"
#include "slipway/base/process.hpp"
#include "slipway/core/task_replica.hpp"
#include "slipway/tasks/horovod_task_hooks.hpp"
#include "slipway/tasks/launch_environment.hpp"
#include "slipway/tasks/rendezvous_task_control.hpp"
#include "slipway/tasks/task_log.hpp"
#ifdef SLIPWAY_HAVE_PMIX
#include "slipway/pmix/mpi_task_hooks.hpp"  // framework = "mpi": the agent hosts a PMIx server
#endif

namespace slipway::exec {

int agent_main(const core::Plan& plan, AgentOptions options) {
  base::disable_core_dumps();  // SLIPWAY_TOKEN is in our environment
  // A step's replicas keep a few descriptors each here; the commands get
  // the limit they were given back (spawn).
  base::raise_descriptor_limit();
  options.wire_timeout = tasks::wire_timeout_from_environment(options.wire_timeout);
  if (auto limit = tasks::log_limit_from_environment()) {
    options.log_limit = *limit;
  } else {
    std::fprintf(stderr, "slipway-exec: SLIPWAY_LOG_LIMIT is no size (bytes, optional K, M or G "
                         "suffix); logs keep the default bound of 64 MiB\n");
  }
  const char* rdzv = std::getenv(core::env::kRendezvous);
  if (const char* run_dir = std::getenv(core::env::kRunDir); run_dir && *run_dir) {
    options.address_dir = core::address_directory(run_dir);
    options.run_dir = run_dir;
  }
  options.advertise_host =
      tasks::advertise_host_from_environment(options.advertise_host, rdzv ? rdzv : "");
  // The control outlives the hooks: a PMIx server host holds the tasks'
  // member connections until it ends.
  std::unique_ptr<tasks::RendezvousTaskControl> control;
  try {
    control = tasks::RendezvousTaskControl::from_environment(options.wire_timeout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "slipway-exec: %s\n", e.what());
    return 1;
  }
  tasks::HorovodTaskHooks horovod_hooks;
  options.hooks.push_back(&horovod_hooks);
#ifdef SLIPWAY_HAVE_PMIX
  auto mpi_hooks = pmix::make_mpi_task_hooks(options.tasks, rdzv ? rdzv : "", options.epoch, "slipway-exec");
  options.hooks.push_back(mpi_hooks.get());
#endif
  return run_agent(plan, options, *control);
}

std::optional<std::string> replica_from_environment() {
  // The same rule, and bound, as slipway.so's in slurmstepd.
  if (const char* replica = std::getenv(core::env::kReplica); replica && *replica) {
    return core::replica_for_task(replica, 0);
  }
  const char* base = std::getenv(core::env::kReplicaBase);
  const char* rank_text = std::getenv("SLURM_PROCID");
  if (!base || !rank_text) return std::nullopt;
  std::uint32_t rank = 0;
  const char* end = rank_text + std::strlen(rank_text);
  auto [ptr, ec] = std::from_chars(rank_text, end, rank);
  if (ec != std::errc() || ptr != end || ptr == rank_text) return std::nullopt;
  return core::replica_for_task(base, rank);
}

}  // namespace slipway::exec
