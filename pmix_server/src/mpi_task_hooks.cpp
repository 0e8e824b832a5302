// The agent hook for framework = "mpi" tasks (mpi_task_hooks.hpp).
#include "slipway/core/contract.hpp"
#include "slipway/pmix/mpi_task_hooks.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "slipway/pmix/private_dir.hpp"

#include "slipway/pmix/rendezvous_backend.hpp"
#include "slipway/rendezvous/token.hpp"

namespace slipway::pmix {
namespace {

const core::Task* task_named(const core::Plan& plan, const std::string& name) {
  auto parsed = core::parse_task_name(name);
  return parsed ? plan.find_task(parsed->node, parsed->replica) : nullptr;
}

// Shared memory lives best in /dev/shm (tmpfs); elsewhere, the temp dir.
std::string shm_base() { return base::scratch_shm_base(); }

}  // namespace

struct MpiTaskHooks::Scratch {
  detail::PrivateDir session{detail::temp_base(), "slipway-ompi", "Open MPI's session directory"};
  detail::PrivateDir shm{shm_base(), "slipway-ompi-shm", "Open MPI's shared-memory directory"};
};

core::EnvMap open_mpi_environment(const std::string& session_dir, const std::string& shm_dir) {
  return {{"OMPI_MCA_schizo", "^orte"},
          {"OMPI_MCA_ess", "pmi"},
          {"OMPI_MCA_orte_tmpdir_base", session_dir},
          {"OMPI_MCA_btl_vader_backing_directory", shm_dir}};
}

MpiTaskHooks::MpiTaskHooks(MpiTaskHooksOptions options) : options_(std::move(options)) {}

MpiTaskHooks::~MpiTaskHooks() {
  host_.reset();     // the server first: its clients are gone by now
  scratch_.reset();
}

bool MpiTaskHooks::needs_client(const core::Plan& plan, const core::Task& task) const {
  return *plan.node(task).framework == core::Framework::mpi;
}

void MpiTaskHooks::before_start(const tasks::TaskContext& context,
                                std::vector<base::HeldPort>& /*ports*/, core::EnvMap& env) {
  const core::Plan& plan = context.plan;
  const core::Task& task = context.task;
  if (!needs_client(plan, task)) return;
  if (!host_) {
    auto world = MpiWorld::from_plan(plan, options_.instance);
    if (!world) throw std::runtime_error("the plan has no MPI world");
    std::vector<std::uint32_t> local;
    for (const auto& name : options_.local_tasks) {
      const core::Task* t = task_named(plan, name);
      if (!t) continue;
      if (auto rank = world->rank_of(t->node, t->replica)) local.push_back(*rank);
    }
    scratch_ = std::make_unique<Scratch>();
    host_ = std::make_unique<ServerHost>(std::move(*world), std::move(local), options_.server);
  }
  auto rank = host_->world().rank_of(task.node, task.replica);
  if (!rank) throw std::runtime_error("the task is not in the program's MPI world");
  std::shared_ptr<Backend> link =
      options_.link && context.client ? options_.link(*context.client) : nullptr;
  if (!link) {
    throw std::runtime_error("framework = \"mpi\" needs the rendezvous (the task has no "
                             "member connection)");
  }
  for (auto& [name, value] : host_->add_client(*rank, std::move(link))) env[name] = value;
  for (auto& [name, value] : open_mpi_environment(scratch_->session.path(), scratch_->shm.path())) {
    env.emplace(name, value);
  }
}

void MpiTaskHooks::after_exit(const tasks::TaskContext& context, int exit_code) {
  const core::Task& task = context.task;
  if (!host_) return;
  if (auto rank = host_->world().rank_of(task.node, task.replica)) host_->client_exited(*rank, exit_code);
}

std::unique_ptr<tasks::TaskHooks> make_mpi_task_hooks(const std::vector<std::string>& local_tasks,
                                                      const std::string& rendezvous_endpoint,
                                                      std::uint32_t epoch,
                                                      const std::string& speaker) {
  MpiTaskHooksOptions options;
  options.local_tasks = local_tasks;
  options.instance = short_hash(rendezvous_endpoint).substr(0, 8);
  if (epoch > 0) options.instance += "e" + std::to_string(epoch);
  // Lines name the process's tasks, like the runner's own messages.
  std::string prefix;
  for (const auto& t : local_tasks) prefix += (prefix.empty() ? "" : "+") + t;
  options.server.log = [prefix, speaker](const std::string& line) {
    std::string text = prefix + ": " + speaker + ": pmix: " + line + "\n";
    std::fputs(text.c_str(), stderr);
  };
  const char* verbose = std::getenv(core::env::kPmixVerbose);
  options.server.verbose = verbose && *verbose && std::string(verbose) != "0";
  options.link = [](rendezvous::Client& client) -> std::shared_ptr<Backend> {
    return rendezvous_backend(client);
  };
  return std::make_unique<MpiTaskHooks>(std::move(options));
}

}  // namespace slipway::pmix
