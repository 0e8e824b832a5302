// MpiTaskHooks: the task agent's hook (exec::TaskHooks) that makes the tasks
// of framework = "mpi" nodes clients of a PMIx server hosted in the agent
// itself (server_host.hpp): no mpirun, no `srun --mpi=pmix`. Other tasks
// are left alone.
//
// Contract: constructed with the agent's task list ("node.replica", every
// task the agent runs). At the first mpi task's before_start it starts the
// server for the program's MPI world with the agent's mpi tasks as local
// ranks; each mpi task then gets PMIX_* variables and the Open MPI
// direct-launch settings (open_mpi_environment) in its environment,
// without replacing what the node's `env` sets. after_exit forgets the
// client; the destructor removes the agent's scratch directories. before_start throws (failing the task) when the server cannot
// start or the task's Wiring gives no control-plane link.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "slipway/exec/task_hooks.hpp"
#include "slipway/pmix/backend.hpp"
#include "slipway/pmix/server_host.hpp"

namespace slipway::exec {

struct MpiTaskHooksOptions {
  std::vector<std::string> agent_tasks;  // "node.replica" of every task the agent runs
  // Tells two runs of one program apart in the namespace name (e.g. a hash
  // of the rendezvous endpoint); the same for every agent of one run.
  std::string instance;
  // The control-plane link of a task, from its Wiring.
  std::function<std::shared_ptr<pmix::Backend>(exec::Wiring&, const core::Task&)> link;
  pmix::ServerHostOptions server;
};

class MpiTaskHooks final : public exec::TaskHooks {
 public:
  explicit MpiTaskHooks(MpiTaskHooksOptions options);
  ~MpiTaskHooks() override;

  void before_start(const core::Plan& plan, const core::Task& task, exec::Wiring& wiring,
                    core::EnvMap& env) override;
  void after_exit(const core::Task& task, int exit_code) override;

 private:
  MpiTaskHooksOptions options_;
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;  // Open MPI's private directories
  std::unique_ptr<pmix::ServerHost> host_;
};

// What slipway-exec registers: links from RendezvousWiring's client, the
// instance from SLIPWAY_RDZV.
std::unique_ptr<exec::TaskHooks> make_mpi_task_hooks(const std::vector<std::string>& agent_tasks);

// What Open MPI 4.x needs under a PMIx server that is neither Slurm, Flux
// nor JSM: the PMIx direct-launch path (its "schizo" framework would
// otherwise declare each process a singleton), and, because several agents
// (several servers) may share a host and number their local ranks from 0
// each, a session directory and a shared-memory backing directory private
// to the agent (else their shared-memory segments collide by name).
core::EnvMap open_mpi_environment(const std::string& session_dir, const std::string& shm_dir);

}  // namespace slipway::exec
