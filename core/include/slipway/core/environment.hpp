// The environment of a task: the contract variables of docs/contract.md
// (SLIPWAY_*), each framework's launch variables, UCX settings and GPU
// binding, as pure functions of the plan, the task and the addresses the
// launch layer resolved. SLIPWAY_RDZV and SLIPWAY_TOKEN are added by the
// launch layer, not here.
//
// Contract: the launch layer binds every port in Task::ports, publishes it,
// waits until every address in required_addresses(plan, task) is resolved,
// then calls task_environment. A function that needs an address missing from
// ResolvedAddresses throws MissingAddress naming it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "slipway/core/plan.hpp"

namespace slipway::core {

using EnvMap = std::map<std::string, std::string>;

// A listening address: host name or IP, and port.
struct Endpoint {
  std::string host;
  std::uint16_t port = 0;
  std::string to_string() const;  // "host:port", "[v6addr]:port"
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

// One named port of one replica of one node.
struct AddressRef {
  std::string node;
  std::uint32_t replica = 0;
  std::string port;
  friend auto operator<=>(const AddressRef&, const AddressRef&) = default;
};

// For a node, per replica, per port name: where it listens.
class ResolvedAddresses {
 public:
  void set(const AddressRef& ref, Endpoint endpoint);
  const Endpoint* find(const AddressRef& ref) const;  // nullptr if unresolved
  // Like find, but throws MissingAddress.
  const Endpoint& at(const AddressRef& ref) const;
  std::size_t size() const { return endpoints_.size(); }

 private:
  std::map<AddressRef, Endpoint> endpoints_;
};

class MissingAddress : public std::runtime_error {
 public:
  explicit MissingAddress(const AddressRef& ref);
  AddressRef ref;
};

// A listening port a framework adds to a node. Names are reserved: no user
// port may take one (see docs/topology.md, "Implicit ports").
struct ImplicitPort {
  std::string name;
  bool first_replica_only = false;  // only replica 0 listens on it
};
inline constexpr std::string_view kTorchMasterPort = "torch_master";
inline constexpr std::string_view kJaxCoordinatorPort = "jax_coordinator";
inline constexpr std::string_view kHorovodRendezvousPort = "horovod_rendezvous";
inline constexpr std::string_view kTensorflowServerPort = "tf_server";
inline constexpr std::string_view kPaddleTrainerPort = "paddle_trainer";

std::vector<ImplicitPort> implicit_ports(const NodeSpec& node);
// Every implicit port name any framework may add (the reserved names).
const std::vector<std::string_view>& reserved_port_names();

// The tensorflow nodes that make up TF_CONFIG's cluster (all but "evaluator").
std::vector<const NodeSpec*> tensorflow_cluster_nodes(const Plan& plan);

// The variables a framework sets (user `env` may not set them).
const std::vector<std::string_view>& framework_variables(Framework framework);

// Every address the task needs before its command starts: its own ports, every
// user port of every replica of each node it handles, and its framework's
// needs (e.g. replica 0's torch_master port). Sorted, no duplicates.
std::vector<AddressRef> required_addresses(const Plan& plan, const Task& task);

// Which launch of a task this is. `attempt` counts the task's launches (0
// on the first, +1 per relaunch); `epoch` counts the incarnations of its
// world (0 at launch, +1 per whole-world restart or resize; always 0 for a
// task outside worlds). Neither is part of the plan (the plan places tasks;
// it does not count their launches): the launch layer passes them, and
// every variable derived from them comes from these values: SLIPWAY_ATTEMPT,
// SLIPWAY_EPOCH, and TORCHELASTIC_RESTART_COUNT (the epoch: torchrun counts
// restarts of the whole world).
struct TaskLaunch {
  std::uint32_t attempt = 0;
  std::uint32_t epoch = 0;
};

// SLIPWAY_PROGRAM, _NODE, _REPLICA, _REPLICAS, _ATTEMPT, _EPOCH,
// SLIPWAY_PORT_<PORT> and SLIPWAY_ADDR_<NODE>_<PORT>.
EnvMap contract_environment(const Plan& plan, const Task& task, TaskLaunch launch,
                            const ResolvedAddresses& addresses);

// The variables of the task's node's framework (empty for none and mpi).
EnvMap framework_environment(const Plan& plan, const Task& task, TaskLaunch launch,
                             const ResolvedAddresses& addresses);

// CUDA_VISIBLE_DEVICES from the task's GPU indices (empty string when it has
// none) when the launcher owns GPU binding; nothing otherwise.
EnvMap gpu_environment(const Task& task, bool launcher_binds_gpus);

// UCX_TLS / UCX_NET_DEVICES / UCX_RNDV_THRESH from the node's [ucx] table.
EnvMap ucx_environment(const NodeSpec& node);

// A handled node with more replicas than this (in the plan given: the
// live ones) has no SLIPWAY_ADDR_<NODE>_<PORT>: the list would pass a safe
// size for one environment string (the kernel refuses one over 128 KiB at
// exec; 2048 addresses take 45 KiB at most). The task reads the list from
// SLIPWAY_ADDR_FILE_<NODE>_<PORT> instead (docs/contract.md).
inline constexpr std::size_t kMaxAddressesInVariable = 2048;

// What `slipway validate` and `slipway plan` note: for each handle of a
// node that may run more than kMaxAddressesInVariable replicas, that its
// address list may come through the file only.
std::vector<std::string> address_file_notes(const Program& program);

// SLIPWAY_ADDR_FILE_<NODE>_<PORT> for every port of every node the task
// handles: `dir`/NODE.PORT, the file the launcher keeps the live addresses
// in (address_file_name).
EnvMap address_file_environment(const Plan& plan, const Task& task, const std::string& dir);
// Where a run keeps its live address files: RUN_DIR/addrs.
std::string address_directory(std::string_view run_dir);
// "NODE.PORT": a live address file's name in its directory.
std::string address_file_name(std::string_view node, std::string_view port);

// A node's directory that survives resumes (SLIPWAY_STATE_DIR):
// RUN/state/NODE; and a task's checkpoint notice file (SLIPWAY_NOTICE_FILE):
// RUN/notice/NODE.REPLICA (docs/resume.md).
std::string state_directory(std::string_view run_dir, std::string_view node);
std::string notice_file(std::string_view run_dir, std::string_view task_name);

struct TaskEnvironmentOptions {
  bool launcher_binds_gpus = true;
  std::string address_dir;  // where the live address files are; empty: none
  std::string run_dir;      // the run directory (state and notice files); empty: none
};

// The whole environment slipway adds for a task: the node's `env`, then UCX,
// contract (and address file), framework and GPU variables (validation keeps these disjoint).
// GPU binding applies only on hosts the plan gives GPUs: on a host planned
// with 0 GPUs, CUDA_VISIBLE_DEVICES is left as it is.
EnvMap task_environment(const Plan& plan, const Task& task, TaskLaunch launch,
                        const ResolvedAddresses& addresses,
                        const TaskEnvironmentOptions& options = {});

}  // namespace slipway::core
