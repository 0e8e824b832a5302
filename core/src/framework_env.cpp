// framework_environment: each framework's launch variables, as its own
// launcher documents them (torchrun, TF_CONFIG, jax.distributed, horovodrun
// with gloo, paddle.distributed.launch). See docs/topology.md, "Frameworks".
#include <nlohmann/json.hpp>

#include "slipway/core/environment.hpp"

namespace slipway::core {
namespace {

std::string str(std::uint64_t n) { return std::to_string(n); }

EnvMap torch_environment(const Plan& plan, const Task& t, TaskLaunch launch,
                         const ResolvedAddresses& a) {
  const Endpoint& master = a.at({t.node, 0, std::string(kTorchMasterPort)});
  const NodeSpec& node = plan.node(t);
  return {{"MASTER_ADDR", master.host},
          {"MASTER_PORT", str(master.port)},
          {"RANK", str(t.replica)},
          {"WORLD_SIZE", str(t.replicas)},
          {"LOCAL_RANK", str(t.local_rank)},
          {"LOCAL_WORLD_SIZE", str(t.local_world_size)},
          {"GROUP_RANK", str(t.group_rank)},
          {"GROUP_WORLD_SIZE", str(t.group_world_size)},
          {"ROLE_RANK", str(t.replica)},
          {"ROLE_WORLD_SIZE", str(t.replicas)},
          {"ROLE_NAME", t.node},
          {"TORCHELASTIC_RUN_ID", plan.program.name.value + "-" + t.node},
          {"TORCHELASTIC_RESTART_COUNT", str(launch.epoch)},
          {"TORCHELASTIC_MAX_RESTARTS", str(node.max_retries.value)}};
}

EnvMap tensorflow_environment(const Plan& plan, const Task& t, const ResolvedAddresses& a) {
  nlohmann::json cluster = nlohmann::json::object();
  for (const NodeSpec* n : tensorflow_cluster_nodes(plan)) {
    nlohmann::json job = nlohmann::json::array();
    for (const Task* r : plan.tasks_of(n->name.value)) {
      job.push_back(a.at({n->name.value, r->replica, std::string(kTensorflowServerPort)}).to_string());
    }
    cluster[n->name.value] = std::move(job);
  }
  const nlohmann::json config{{"cluster", cluster},
                              {"task", {{"type", t.node}, {"index", t.replica}}}};
  return {{"TF_CONFIG", config.dump()}};
}

EnvMap jax_environment(const Task& t, const ResolvedAddresses& a) {
  const Endpoint& coordinator = a.at({t.node, 0, std::string(kJaxCoordinatorPort)});
  return {{"JAX_COORDINATOR_ADDRESS", coordinator.to_string()},
          {"JAX_NUM_PROCESSES", str(t.replicas)},
          {"JAX_PROCESS_ID", str(t.replica)}};
}

EnvMap horovod_environment(const Plan& plan, const Task& t, const ResolvedAddresses& a) {
  // Horovod's cross communicator joins the tasks with the same local rank,
  // one per host, in host order.
  std::uint32_t cross_rank = 0, cross_size = 0;
  for (const Task* other : plan.tasks_of(t.node)) {
    if (other->local_rank != t.local_rank) continue;
    if (other->group_rank < t.group_rank) ++cross_rank;
    ++cross_size;
  }
  const Endpoint& rendezvous = a.at({t.node, 0, std::string(kHorovodRendezvousPort)});
  return {{"HOROVOD_RANK", str(t.replica)},
          {"HOROVOD_SIZE", str(t.replicas)},
          {"HOROVOD_LOCAL_RANK", str(t.local_rank)},
          {"HOROVOD_LOCAL_SIZE", str(t.local_world_size)},
          {"HOROVOD_CROSS_RANK", str(cross_rank)},
          {"HOROVOD_CROSS_SIZE", str(cross_size)},
          {"HOROVOD_HOSTNAME", plan.host(t).name},
          {"HOROVOD_GLOO_RENDEZVOUS_ADDR", rendezvous.host},
          {"HOROVOD_GLOO_RENDEZVOUS_PORT", str(rendezvous.port)},
          {"HOROVOD_CONTROLLER", "gloo"},
          {"HOROVOD_CPU_OPERATIONS", "gloo"}};
}

EnvMap paddle_environment(const Plan& plan, const Task& t, const ResolvedAddresses& a) {
  std::string endpoints;
  for (const Task* r : plan.tasks_of(t.node)) {
    if (!endpoints.empty()) endpoints += ",";
    endpoints += a.at({t.node, r->replica, std::string(kPaddleTrainerPort)}).to_string();
  }
  return {{"PADDLE_TRAINER_ID", str(t.replica)},
          {"PADDLE_TRAINERS_NUM", str(t.replicas)},
          {"PADDLE_TRAINER_ENDPOINTS", endpoints},
          {"PADDLE_CURRENT_ENDPOINT", a.at({t.node, t.replica, std::string(kPaddleTrainerPort)}).to_string()}};
}

}  // namespace

EnvMap framework_environment(const Plan& plan, const Task& task, TaskLaunch launch,
                             const ResolvedAddresses& addresses) {
  switch (plan.node(task).framework.value) {
    case Framework::torch: return torch_environment(plan, task, launch, addresses);
    case Framework::tensorflow: return tensorflow_environment(plan, task, addresses);
    case Framework::jax: return jax_environment(task, addresses);
    case Framework::horovod: return horovod_environment(plan, task, addresses);
    case Framework::paddle: return paddle_environment(plan, task, addresses);
    case Framework::none:
    case Framework::mpi: return {};  // MPI's variables come from the PMIx server (issue 6)
  }
  return {};
}

}  // namespace slipway::core
