// MpiTaskHooks: the task runner's hook (tasks::TaskHooks) that makes the
// tasks of framework = "mpi" nodes clients of a PMIx server hosted in the
// process that runs them (server_host.hpp; slipway-exec, or the local
// launcher): no mpirun, no `srun --mpi=pmix`. Other tasks are left alone.
//
// Contract: constructed with the tasks this process runs ("node.replica";
// the server's local ranks). An mpi task needs a member connection of its
// own (needs_client): the server's link to the control plane. At the first
// mpi task's before_start it starts the server for the program's MPI world
// with the local mpi tasks as local ranks; each mpi task then gets PMIX_*
// variables and the Open MPI direct-launch settings (open_mpi_environment)
// in its environment, without replacing what the node's `env` sets.
// after_exit forgets the client; the destructor removes the scratch
// directories. before_start throws (failing the task) when the server
// cannot start or the task has no member connection.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "slipway/tasks/task_hooks.hpp"
#include "slipway/pmix/backend.hpp"
#include "slipway/pmix/server_host.hpp"

namespace slipway::pmix {

struct MpiTaskHooksOptions {
  std::vector<std::string> local_tasks;  // "node.replica" of every task this process runs
  // Tells two runs of one program apart in the namespace name (e.g. a hash
  // of the rendezvous endpoint); the same for every agent of one run.
  std::string instance;
  // The control-plane link of a task, from its member connection.
  std::function<std::shared_ptr<pmix::Backend>(rendezvous::Client&)> link;
  pmix::ServerHostOptions server;
};

class MpiTaskHooks final : public tasks::TaskHooks {
 public:
  explicit MpiTaskHooks(MpiTaskHooksOptions options);
  ~MpiTaskHooks() override;

  bool needs_client(const core::Plan& plan, const core::Task& task) const override;
  void before_start(const tasks::TaskContext& context, std::vector<base::HeldPort>& ports,
                    core::EnvMap& env) override;
  void after_exit(const tasks::TaskContext& context, int exit_code) override;

 private:
  MpiTaskHooksOptions options_;
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;  // Open MPI's private directories
  std::unique_ptr<pmix::ServerHost> host_;
};

// The hook as slipway-exec registers it: links over the task's member
// connection, the instance from `rendezvous_endpoint` and the world's
// `epoch` (each epoch of a world is a namespace of its own, so nothing of an
// earlier epoch's modex or fences is ever read), the server's lines on
// stderr behind "TASKS: SPEAKER: pmix: ".
std::unique_ptr<tasks::TaskHooks> make_mpi_task_hooks(const std::vector<std::string>& local_tasks,
                                                      const std::string& rendezvous_endpoint,
                                                      std::uint32_t epoch,
                                                      const std::string& speaker);

// What Open MPI 4.x needs under a PMIx server that is neither Slurm, Flux
// nor JSM: the PMIx direct-launch path (its "schizo" framework would
// otherwise declare each process a singleton), and, because several agents
// (several servers) may share a host and number their local ranks from 0
// each, a session directory and a shared-memory backing directory private
// to the agent (else their shared-memory segments collide by name).
core::EnvMap open_mpi_environment(const std::string& session_dir, const std::string& shm_dir);

}  // namespace slipway::pmix
