// The ports and variables each framework adds to its nodes (environment.hpp):
// implicit_ports, reserved_port_names, framework_variables.
#include "slipway/core/environment.hpp"

namespace slipway::core {

std::vector<ImplicitPort> implicit_ports(const NodeSpec& node) {
  switch (node.framework.value) {
    case Framework::torch: return {{std::string(kTorchMasterPort), true}};
    case Framework::jax: return {{std::string(kJaxCoordinatorPort), true}};
    case Framework::horovod: return {{std::string(kHorovodRendezvousPort), true}};
    case Framework::tensorflow: return {{std::string(kTensorflowServerPort), false}};
    case Framework::paddle: return {{std::string(kPaddleTrainerPort), false}};
    case Framework::none:
    case Framework::mpi: return {};
  }
  return {};
}

const std::vector<std::string_view>& reserved_port_names() {
  static const std::vector<std::string_view> names{kTorchMasterPort, kJaxCoordinatorPort,
                                                   kHorovodRendezvousPort, kTensorflowServerPort,
                                                   kPaddleTrainerPort};
  return names;
}

const std::vector<std::string_view>& framework_variables(Framework framework) {
  static const std::vector<std::string_view> none;
  static const std::vector<std::string_view> torch{
      "MASTER_ADDR",      "MASTER_PORT",     "RANK",          "WORLD_SIZE",
      "LOCAL_RANK",       "LOCAL_WORLD_SIZE", "GROUP_RANK",   "GROUP_WORLD_SIZE",
      "ROLE_RANK",        "ROLE_WORLD_SIZE", "ROLE_NAME",     "TORCHELASTIC_RUN_ID",
      "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS"};
  static const std::vector<std::string_view> tensorflow{"TF_CONFIG"};
  static const std::vector<std::string_view> jax{"JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES",
                                                 "JAX_PROCESS_ID"};
  static const std::vector<std::string_view> horovod{
      "HOROVOD_RANK",       "HOROVOD_SIZE",       "HOROVOD_LOCAL_RANK",
      "HOROVOD_LOCAL_SIZE", "HOROVOD_CROSS_RANK", "HOROVOD_CROSS_SIZE",
      "HOROVOD_HOSTNAME",   "HOROVOD_GLOO_RENDEZVOUS_ADDR", "HOROVOD_GLOO_RENDEZVOUS_PORT",
      "HOROVOD_CONTROLLER", "HOROVOD_CPU_OPERATIONS"};
  static const std::vector<std::string_view> paddle{"PADDLE_TRAINER_ID", "PADDLE_TRAINERS_NUM",
                                                    "PADDLE_TRAINER_ENDPOINTS",
                                                    "PADDLE_CURRENT_ENDPOINT"};
  switch (framework) {
    case Framework::torch: return torch;
    case Framework::tensorflow: return tensorflow;
    case Framework::jax: return jax;
    case Framework::horovod: return horovod;
    case Framework::paddle: return paddle;
    case Framework::none:
    case Framework::mpi: return none;
  }
  return none;
}

}  // namespace slipway::core
