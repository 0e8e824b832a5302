// The task's starting environment: inherited, then slipway's variables
// (see launch_environment.hpp).
#include "slipway/tasks/launch_environment.hpp"

#include <cstdlib>
#include <unordered_map>

#include "slipway/base/local_address.hpp"
#include "slipway/core/contract.hpp"

namespace slipway::tasks {
namespace {

void add_network_interface(const core::NodeSpec& node, const std::string& advertise_host,
                           core::EnvMap& env) {
  auto framework = *node.framework;
  if (framework != core::Framework::torch && framework != core::Framework::horovod) return;
  if (advertise_host.empty()) return;
  auto name = base::interface_of(advertise_host);
  if (!name) return;
  for (const char* variable : {"GLOO_SOCKET_IFNAME", "TP_SOCKET_IFNAME"}) {
    bool user_set = std::getenv(variable) != nullptr;
    for (const auto& entry : node.env) user_set = user_set || *entry.name == variable;
    if (!user_set && !env.count(variable)) env[variable] = *name;
  }
}

}  // namespace

void merge_environment(std::vector<std::string>& env, const core::EnvMap& added) {
  std::unordered_map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < env.size(); ++i) {
    position.emplace(env[i].substr(0, env[i].find('=')), i);
  }
  for (const auto& [name, value] : added) {
    std::string entry = name + "=" + value;
    if (auto it = position.find(name); it != position.end()) {
      env[it->second] = std::move(entry);
    } else {
      env.push_back(std::move(entry));
    }
  }
}

core::EnvMap added_environment(const core::Plan& plan, const core::Task& task,
                               const core::ResolvedAddresses& addresses, core::TaskLaunch launch,
                               bool launcher_binds_gpus, const std::string& advertise_host,
                               const std::string& address_dir, const std::string& run_dir) {
  core::TaskEnvironmentOptions options;
  options.launcher_binds_gpus = launcher_binds_gpus;
  options.address_dir = address_dir;
  options.run_dir = run_dir;
  auto added = core::task_environment(plan, task, launch, addresses, options);
  add_network_interface(plan.node(task), advertise_host, added);
  return added;
}

const std::string& advertised_host(const core::Host& host, const std::string& advertise_host,
                                   const std::string& host_name) {
  return !host.address.empty() ? host.address : !advertise_host.empty() ? advertise_host : host_name;
}

std::chrono::milliseconds wire_timeout_from_environment(std::chrono::milliseconds given) {
  const char* seconds = std::getenv(core::env::kWireTimeout);
  if (!seconds || !*seconds) return given;
  return std::chrono::seconds(std::atoll(seconds));
}

std::string advertise_host_from_environment(const std::string& given,
                                            const std::string& rendezvous_endpoint) {
  if (const char* forced = std::getenv(core::env::kAdvertiseHost); forced && *forced) return forced;
  if (!given.empty() || rendezvous_endpoint.empty()) return given;
  return base::local_address_toward(base::endpoint_host(rendezvous_endpoint)).value_or("");
}

}  // namespace slipway::tasks
