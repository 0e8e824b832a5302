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

namespace {

std::optional<std::uint32_t> number_from(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  std::uint32_t value = 0;
  const char* end = text + std::strlen(text);
  auto [ptr, ec] = std::from_chars(text, end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::uint32_t> replica_from_environment() {
  if (auto replica = number_from("SLIPWAY_REPLICA")) return replica;
  auto base = number_from("SLIPWAY_REPLICA_BASE");
  auto rank = number_from("SLURM_PROCID");
  if (!base || !rank) return std::nullopt;
  return *base + *rank;
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
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(128 + SIGTERM);
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
