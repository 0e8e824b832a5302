// The task agent's entry point: options from the environment, the
// rendezvous wiring, PMIx hooks, and the forked variant the local launcher
// uses (see agent_entry.hpp).
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

#include "slipway/exec/local_address.hpp"
#include "slipway/exec/process.hpp"
#include "slipway/exec/rendezvous_wiring.hpp"
#include "slipway/spank/task_replica.hpp"  // the replica rule of a shared step
#ifdef SLIPWAY_HAVE_PMIX
#include "slipway/pmix/mpi_task_hooks.hpp"  // framework = "mpi": the agent hosts a PMIx server
#endif

namespace slipway::exec {

int agent_main(const core::Plan& plan, AgentOptions options) {
  if (const char* seconds = std::getenv("SLIPWAY_WIRE_TIMEOUT"); seconds && *seconds) {
    options.wire_timeout = std::chrono::seconds(std::atoll(seconds));
  }
  if (const char* forced = std::getenv("SLIPWAY_ADVERTISE_HOST"); forced && *forced) {
    options.advertise_host = forced;
  } else if (const char* rdzv = std::getenv("SLIPWAY_RDZV");
             options.advertise_host.empty() && rdzv && *rdzv) {
    // The address this host has on the route to the rendezvous is one every
    // peer of the program can reach.
    options.advertise_host = local_address_toward(endpoint_host(rdzv)).value_or("");
  }
  WiringFactory wiring;
  try {
    wiring = rendezvous_wiring_from_environment(options.attempt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "slipway-exec: %s\n", e.what());
    return 1;
  }
#ifdef SLIPWAY_HAVE_PMIX
  auto mpi_hooks = pmix::make_mpi_task_hooks(options.tasks);
  options.hooks.push_back(mpi_hooks.get());
#endif
  return run_agent(plan, options, wiring);
}

std::optional<std::string> replica_from_environment() {
  // The same rule, and bound, as slipway.so's in slurmstepd.
  if (const char* replica = std::getenv(spank::kReplicaEnv); replica && *replica) {
    return spank::replica_for_task(replica, 0);
  }
  const char* base = std::getenv(spank::kReplicaBaseEnv);
  const char* rank_text = std::getenv("SLURM_PROCID");
  if (!base || !rank_text) return std::nullopt;
  std::uint32_t rank = 0;
  const char* end = rank_text + std::strlen(rank_text);
  auto [ptr, ec] = std::from_chars(rank_text, end, rank);
  if (ec != std::errc() || ptr != end || ptr == rank_text) return std::nullopt;
  return spank::replica_for_task(base, rank);
}

pid_t fork_agent(const core::Plan& plan, const AgentOptions& options,
                 const std::vector<std::string>& env) {
  // Everything the child needs is prepared before fork: after it, only this
  // thread exists in the child and it must not wait on a lock another
  // thread of the parent held.
  pid_t parent = getpid();
  std::fflush(nullptr);  // or the child would write the parent's buffered output again
  pid_t pid = fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid > 0) {
    setpgid(pid, pid);  // also from here, so a signal right after fork finds the group
    return pid;
  }
  int code = 1;
  try {
    close_descriptors_from(STDERR_FILENO + 1);
    prctl(PR_SET_NAME, "slipway-agent");  // ps -o comm, top; the command line stays the launcher's
    setpgid(0, 0);
    if (!die_with_parent(SIGTERM) || getppid() != parent) _exit(128 + SIGTERM);
    block_agent_signals();
    for (const auto& entry : env) {
      auto eq = entry.find('=');
      if (eq == std::string::npos) continue;
      setenv(entry.substr(0, eq).c_str(), entry.c_str() + eq + 1, 1);
    }
    code = agent_main(plan, options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "slipway-exec: %s\n", e.what());
  }
  std::fflush(nullptr);
  _exit(code);
}

}  // namespace slipway::exec
