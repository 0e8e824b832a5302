// The agent hook for framework = "mpi" tasks (mpi_task_hooks.hpp).
#include "slipway/core/contract.hpp"
#include "slipway/exec/mpi_task_hooks.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "slipway/pmix/private_dir.hpp"

#include "slipway/exec/rendezvous_wiring.hpp"
#include "slipway/pmix/rendezvous_backend.hpp"
#include "slipway/rendezvous/token.hpp"

namespace slipway::exec {
namespace {

const core::Task* task_named(const core::Plan& plan, const std::string& name) {
  auto dot = name.rfind('.');
  if (dot == std::string::npos) return nullptr;
  char* end = nullptr;
  unsigned long replica = std::strtoul(name.c_str() + dot + 1, &end, 10);
  if (end == name.c_str() + dot + 1 || *end != '\0') return nullptr;
  return plan.find_task(name.substr(0, dot), static_cast<std::uint32_t>(replica));
}

// Shared memory lives best in /dev/shm (tmpfs); elsewhere, the temp dir.
std::string shm_base() { return base::scratch_shm_base(); }

}  // namespace

struct MpiTaskHooks::Scratch {
  pmix::detail::PrivateDir session{pmix::detail::temp_base(), "slipway-ompi", "Open MPI's session directory"};
  pmix::detail::PrivateDir shm{shm_base(), "slipway-ompi-shm", "Open MPI's shared-memory directory"};
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

void MpiTaskHooks::before_start(const core::Plan& plan, const core::Task& task, exec::Wiring& wiring,
                                core::EnvMap& env) {
  if (*plan.node(task).framework != core::Framework::mpi) return;
  if (!host_) {
    auto world = pmix::MpiWorld::from_plan(plan, options_.instance);
    if (!world) throw std::runtime_error("the plan has no MPI world");
    std::vector<std::uint32_t> local;
    for (const auto& name : options_.agent_tasks) {
      const core::Task* t = task_named(plan, name);
      if (!t) continue;
      if (auto rank = world->rank_of(t->node, t->replica)) local.push_back(*rank);
    }
    scratch_ = std::make_unique<Scratch>();
    host_ = std::make_unique<pmix::ServerHost>(std::move(*world), std::move(local), options_.server);
  }
  auto rank = host_->world().rank_of(task.node, task.replica);
  if (!rank) throw std::runtime_error("the task is not in the program's MPI world");
  std::shared_ptr<pmix::Backend> link = options_.link ? options_.link(wiring, task) : nullptr;
  if (!link) {
    throw std::runtime_error("framework = \"mpi\" needs the rendezvous (the task's wiring has no "
                             "rendezvous client)");
  }
  for (auto& [name, value] : host_->add_client(*rank, std::move(link))) env[name] = value;
  for (auto& [name, value] : open_mpi_environment(scratch_->session.path(), scratch_->shm.path())) {
    env.emplace(name, value);
  }
}

void MpiTaskHooks::after_exit(const core::Task& task, int exit_code) {
  if (!host_) return;
  if (auto rank = host_->world().rank_of(task.node, task.replica)) host_->client_exited(*rank, exit_code);
}

std::unique_ptr<exec::TaskHooks> make_mpi_task_hooks(const std::vector<std::string>& agent_tasks) {
  MpiTaskHooksOptions options;
  options.agent_tasks = agent_tasks;
  const char* endpoint = std::getenv(core::env::kRendezvous);
  options.instance = pmix::short_hash(endpoint ? endpoint : "").substr(0, 8);
  // Lines name the agent's tasks, like the agent's own messages.
  std::string prefix;
  for (const auto& t : agent_tasks) prefix += (prefix.empty() ? "" : "+") + t;
  options.server.log = [prefix](const std::string& line) {
    std::string text = prefix + ": slipway-exec: pmix: " + line + "\n";
    std::fputs(text.c_str(), stderr);
  };
  const char* verbose = std::getenv(core::env::kPmixVerbose);
  options.server.verbose = verbose && *verbose && std::string(verbose) != "0";
  options.link = [](exec::Wiring& wiring, const core::Task&) -> std::shared_ptr<pmix::Backend> {
    auto* rendezvous = dynamic_cast<exec::RendezvousWiring*>(&wiring);
    return rendezvous ? pmix::rendezvous_backend(rendezvous->client()) : nullptr;
  };
  return std::make_unique<MpiTaskHooks>(std::move(options));
}

}  // namespace slipway::exec
