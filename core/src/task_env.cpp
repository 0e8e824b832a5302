// The contract environment of docs/contract.md, GPU and UCX variables, and the
// whole environment of a task (environment.hpp).
#include "slipway/core/environment.hpp"

#include "slipway/core/contract.hpp"
#include "slipway/core/replay_config.hpp"

namespace slipway::core {

EnvMap contract_environment(const Plan& plan, const Task& task, TaskLaunch launch,
                            const ResolvedAddresses& addresses) {
  EnvMap env{{env::kProgram, plan.program.name.value},
             {env::kNode, task.node},
             {env::kReplica, std::to_string(task.replica)},
             {env::kReplicas, std::to_string(task.replicas)},
             {env::kAttempt, std::to_string(launch.attempt)},
             {env::kEpoch, std::to_string(launch.epoch)}};
  for (const std::string& port : task.ports) {
    env[env::port_variable(port)] =
        std::to_string(addresses.at({task.node, task.replica, port}).port);
  }
  for (const auto& handle : plan.node(task).handles) {
    const NodeSpec* target = plan.program.find_node(handle.value);
    if (target == nullptr) continue;
    const auto replicas = plan.tasks_of(target->name.value);
    if (replicas.size() > kMaxAddressesInVariable) continue;  // in its address file only
    for (const auto& port : target->ports) {
      std::string list;
      for (const Task* r : replicas) {
        if (!list.empty()) list += ",";
        list += addresses.at({target->name.value, r->replica, port.value}).to_string();
      }
      env[env::address_variable(target->name.value, port.value)] = list;
    }
  }
  return env;
}

std::vector<std::string> address_file_notes(const Program& program) {
  std::vector<std::string> out;
  for (const NodeSpec& node : program.nodes) {
    for (const auto& handle : node.handles) {
      const NodeSpec* target = program.find_node(handle.value);
      if (target == nullptr || target->replicas.value.max <= kMaxAddressesInVariable) continue;
      for (const auto& port : target->ports) {
        out.push_back("node '" + node.name.value + "' handles '" + target->name.value + "' (up to " +
                      std::to_string(target->replicas.value.max) + " replicas): when more than " +
                      std::to_string(kMaxAddressesInVariable) + " run, its tasks get no " +
                      env::address_variable(target->name.value, port.value) + " and read the list from " +
                      env::address_file_variable(target->name.value, port.value) + " (one address per line)");
      }
    }
  }
  return out;
}

std::string address_directory(std::string_view run_dir) { return std::string(run_dir) + "/addrs"; }

std::string state_directory(std::string_view run_dir, std::string_view node) {
  return std::string(run_dir) + "/state/" + std::string(node);
}

std::string notice_file(std::string_view run_dir, std::string_view task_name) {
  return std::string(run_dir) + "/notice/" + std::string(task_name);
}

std::string address_file_name(std::string_view node, std::string_view port) {
  return std::string(node) + "." + std::string(port);
}

EnvMap address_file_environment(const Plan& plan, const Task& task, const std::string& dir) {
  EnvMap env;
  for (const auto& handle : plan.node(task).handles) {
    const NodeSpec* target = plan.program.find_node(handle.value);
    if (target == nullptr) continue;
    for (const auto& port : target->ports) {
      env[env::address_file_variable(target->name.value, port.value)] =
          dir + "/" + address_file_name(target->name.value, port.value);
    }
  }
  return env;
}

EnvMap gpu_environment(const Task& task, bool launcher_binds_gpus) {
  if (!launcher_binds_gpus) return {};
  std::string devices;
  for (std::uint32_t g : task.gpus) devices += (devices.empty() ? "" : ",") + std::to_string(g);
  return {{"CUDA_VISIBLE_DEVICES", devices}};
}

EnvMap ucx_environment(const NodeSpec& node) {
  EnvMap env;
  const UcxSettings& ucx = node.ucx.value;
  if (ucx.tls) env["UCX_TLS"] = *ucx.tls;
  if (ucx.net_devices) env["UCX_NET_DEVICES"] = *ucx.net_devices;
  if (ucx.rndv_thresh) env["UCX_RNDV_THRESH"] = *ucx.rndv_thresh;
  return env;
}

EnvMap task_environment(const Plan& plan, const Task& task, TaskLaunch launch,
                        const ResolvedAddresses& addresses,
                        const TaskEnvironmentOptions& options) {
  const NodeSpec& node = plan.node(task);
  EnvMap env;
  for (const EnvVar& var : node.env) env[var.name.value] = var.value.value;
  const EnvMap files =
      options.address_dir.empty() ? EnvMap{} : address_file_environment(plan, task, options.address_dir);
  EnvMap run_files;
  if (!options.run_dir.empty()) {
    run_files[env::kStateDir] = state_directory(options.run_dir, task.node);
    run_files[env::kNoticeFile] = notice_file(options.run_dir, task.name());
  }
  for (const EnvMap& layer : {ucx_environment(node), contract_environment(plan, task, launch, addresses), files,
                              run_files,
                              replay_environment(node),
                              framework_environment(plan, task, launch, addresses),
                              gpu_environment(task, options.launcher_binds_gpus && plan.host(task).gpus > 0)}) {
    for (const auto& [name, value] : layer) env[name] = value;
  }
  return env;
}

}  // namespace slipway::core
