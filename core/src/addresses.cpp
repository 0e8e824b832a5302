// ResolvedAddresses, MissingAddress, Endpoint formatting and
// required_addresses (environment.hpp).
#include <algorithm>

#include "slipway/core/environment.hpp"

namespace slipway::core {

std::string Endpoint::to_string() const {
  // An IPv6 literal is bracketed so that the last ':' separates the port.
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

MissingAddress::MissingAddress(const AddressRef& r)
    : std::runtime_error("address of port '" + r.port + "' of " + r.node + "." +
                         std::to_string(r.replica) + " is not resolved"),
      ref(r) {}

void ResolvedAddresses::set(const AddressRef& ref, Endpoint endpoint) {
  endpoints_[ref] = std::move(endpoint);
}

const Endpoint* ResolvedAddresses::find(const AddressRef& ref) const {
  auto it = endpoints_.find(ref);
  return it == endpoints_.end() ? nullptr : &it->second;
}

const Endpoint& ResolvedAddresses::at(const AddressRef& ref) const {
  const Endpoint* e = find(ref);
  if (e == nullptr) throw MissingAddress(ref);
  return *e;
}

std::vector<const NodeSpec*> tensorflow_cluster_nodes(const Plan& plan) {
  std::vector<const NodeSpec*> nodes;
  for (const NodeSpec& n : plan.program.nodes) {
    // TensorFlow keeps the evaluator out of the cluster spec.
    if (n.framework.value == Framework::tensorflow && n.name.value != "evaluator") nodes.push_back(&n);
  }
  return nodes;
}

std::vector<AddressRef> required_addresses(const Plan& plan, const Task& task) {
  std::vector<AddressRef> refs;
  for (const std::string& port : task.ports) refs.push_back({task.node, task.replica, port});
  const NodeSpec& node = plan.node(task);
  auto every_replica = [&](const std::string& node_name, const std::string& port) {
    for (const Task* t : plan.tasks_of(node_name)) refs.push_back({node_name, t->replica, port});
  };
  for (const auto& handle : node.handles) {
    const NodeSpec* target = plan.program.find_node(handle.value);
    if (target == nullptr) continue;
    for (const auto& port : target->ports) every_replica(target->name.value, port.value);
  }
  switch (node.framework.value) {
    case Framework::torch: refs.push_back({task.node, 0, std::string(kTorchMasterPort)}); break;
    case Framework::jax: refs.push_back({task.node, 0, std::string(kJaxCoordinatorPort)}); break;
    case Framework::horovod: refs.push_back({task.node, 0, std::string(kHorovodRendezvousPort)}); break;
    case Framework::paddle: every_replica(task.node, std::string(kPaddleTrainerPort)); break;
    case Framework::tensorflow:
      for (const NodeSpec* n : tensorflow_cluster_nodes(plan)) {
        every_replica(n->name.value, std::string(kTensorflowServerPort));
      }
      break;
    case Framework::none:
    case Framework::mpi: break;
  }
  std::sort(refs.begin(), refs.end());
  refs.erase(std::unique(refs.begin(), refs.end()), refs.end());
  return refs;
}

}  // namespace slipway::core
