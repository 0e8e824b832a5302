// The limits a valid program must fit to be able to start at all, checked
// at its maximum replicas (validate.hpp): tasks per plan, the size of the
// plan file every agent reads, and the size of what each task's exec is
// given (Linux refuses one variable over 128 KiB, and arguments plus
// environment over a quarter of the stack limit, with E2BIG).
#include <algorithm>
#include <cstdint>

#include "limits.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/core/environment.hpp"
#include "slipway/core/plan_json.hpp"
#include "slipway/core/replay_config.hpp"
#include "validate.hpp"

namespace slipway::core {
namespace {

SourceLocation replicas_where(const NodeSpec& node) {
  return node.replicas.where.known() ? node.replicas.where : node.name.where;
}

// One variable as exec receives it: "NAME=value\0" plus its envp pointer.
std::uint64_t variable_bytes(std::uint64_t name, std::uint64_t value) { return name + 1 + value + 1 + 8; }

// The value of a comma list of `replicas` addresses, each at its widest.
std::uint64_t address_list_bytes(std::uint32_t replicas) {
  return std::uint64_t{replicas} * limits::kAddressBytes - 1;
}

// TF_CONFIG's cluster spec lists every replica of every tensorflow node.
std::uint64_t tf_config_bytes(const Program& program) {
  std::uint64_t bytes = 64;  // {"cluster":{...},"task":{"type":"","index":N}}
  for (const NodeSpec& n : program.nodes) {
    if (n.framework.value != Framework::tensorflow || n.name.value == "evaluator") continue;
    bytes += 2 * n.name.value.size() + 6 + std::uint64_t{n.replicas.value.max} * (limits::kAddressBytes + 2);
  }
  return bytes;
}

const NodeSpec* largest_tensorflow_node(const Program& program) {
  const NodeSpec* largest = nullptr;
  for (const NodeSpec& n : program.nodes) {
    if (n.framework.value != Framework::tensorflow) continue;
    if (largest == nullptr || n.replicas.value.max > largest->replicas.value.max) largest = &n;
  }
  return largest;
}

std::string over_variable_limit(const std::string& variable, std::uint64_t bytes) {
  return variable + " would be up to " + std::to_string(bytes) + " bytes, over the " +
         std::to_string(limits::kMaxVariableBytes) +
         " bytes Linux allows one variable (exec would fail with 'Argument list too long')";
}

// Every variable of a task of `node` and its arguments; reports each
// variable over the kernel's bound, returns the total.
std::uint64_t check_exec_size(Reader& r, const Program& program, const NodeSpec& node) {
  std::uint64_t total = 0;
  for (const auto& word : node.command.value) total += word.size() + 1 + 8;
  for (const auto& word : node.wrapper.value) total += word.size() + 1 + 8;
  for (const EnvVar& var : node.env) total += variable_bytes(var.name.value.size(), var.value.value.size());
  for (const auto& port : node.ports) total += variable_bytes(13 + port.value.size(), 5);  // SLIPWAY_PORT_*
  for (const auto& handle : node.handles) {
    const NodeSpec* target = program.find_node(handle.value);
    // More than kMaxAddressesInVariable replicas: in the address file only.
    if (target == nullptr || target->replicas.value.max > kMaxAddressesInVariable) continue;
    for (const auto& port : target->ports) {
      const std::string variable = env::address_variable(target->name.value, port.value);
      total += variable_bytes(variable.size(), address_list_bytes(target->replicas.value.max));
    }
  }
  for (const auto& [name, value] : replay_environment(node)) total += variable_bytes(name.size(), value.size());
  if (node.framework.value == Framework::paddle) {
    const std::uint64_t bytes =
        variable_bytes(std::string_view("PADDLE_TRAINER_ENDPOINTS").size(), address_list_bytes(node.replicas.value.max));
    total += bytes;
    if (bytes - 8 > limits::kMaxVariableBytes) {
      r.error(replicas_where(node), "'replicas' in node " + in_quotes(node.name.value) + ": " +
                                        over_variable_limit("PADDLE_TRAINER_ENDPOINTS", bytes - 8) +
                                        "; lower 'replicas'");
    }
  }
  if (node.framework.value == Framework::tensorflow) {
    const std::uint64_t bytes = variable_bytes(std::string_view("TF_CONFIG").size(), tf_config_bytes(program));
    total += bytes;
    // Reported once, at the largest tensorflow node.
    if (bytes - 8 > limits::kMaxVariableBytes && largest_tensorflow_node(program) == &node) {
      r.error(replicas_where(node), "'replicas' in node " + in_quotes(node.name.value) + ": " +
                                        over_variable_limit("TF_CONFIG", bytes - 8) +
                                        "; it lists every tensorflow replica, so lower their replicas");
    }
  }
  return total + limits::kContractEnvironmentBytes;
}

void check_tasks_and_plan_size(Reader& r, const Program& program) {
  std::uint64_t tasks = 0, plan_bytes = 0;
  const NodeSpec* most_tasks = nullptr;
  const NodeSpec* most_bytes = nullptr;
  std::uint64_t largest_bytes = 0;
  for (const NodeSpec& node : program.nodes) {
    const std::uint32_t replicas = node.replicas.value.max;
    tasks += replicas;
    if (most_tasks == nullptr || replicas > most_tasks->replicas.value.max) most_tasks = &node;
    const std::uint64_t bytes = std::uint64_t{replicas} * task_json_bytes_bound(node);
    plan_bytes += bytes;
    if (most_bytes == nullptr || bytes > largest_bytes) {
      most_bytes = &node;
      largest_bytes = bytes;
    }
  }
  if (most_tasks == nullptr) return;
  if (tasks > limits::kMaxTasks) {
    r.error(replicas_where(*most_tasks),
            "the program has up to " + std::to_string(tasks) + " tasks (every node at its maximum "
            "replicas), more than the limit of " + std::to_string(limits::kMaxTasks) +
            " per program; lower 'replicas' (node " + in_quotes(most_tasks->name.value) + " has " +
            std::to_string(most_tasks->replicas.value.max) + ")");
    return;
  }
  Plan no_tasks;
  no_tasks.program = program;
  plan_bytes += plan_to_json(no_tasks).dump(2).size();
  if (plan_bytes > limits::kMaxPlanBytes - limits::kPlanHostsReserveBytes) {
    r.error(replicas_where(*most_bytes),
            "the plan of this program would take up to " + std::to_string(plan_bytes >> 20) +
                " MiB, more than the " +
                std::to_string((limits::kMaxPlanBytes - limits::kPlanHostsReserveBytes) >> 20) +
                " MiB its tasks may take of the " + std::to_string(limits::kMaxPlanBytes >> 20) +
                " MiB plan file every task agent reads; node " + in_quotes(most_bytes->name.value) +
                " takes " + std::to_string(largest_bytes >> 20) + " MiB of it with " +
                std::to_string(most_bytes->replicas.value.max) +
                " replicas: lower 'replicas', or shorten its name and ports");
  }
}

}  // namespace

void check_scale(Reader& r, const Program& program) {
  for (const NodeSpec& node : program.nodes) {
    const std::uint64_t bytes = check_exec_size(r, program, node);
    if (bytes > limits::kMaxExecBytes) {
      r.error(node.name.where, "a task of node " + in_quotes(node.name.value) + " would be given up to " +
                                   std::to_string(bytes) + " bytes of arguments and environment, more "
                                   "than the " + std::to_string(limits::kMaxExecBytes) +
                                   " bytes slipway allows (the rest of Linux's usual 2 MiB is left to "
                                   "the inherited environment); shorten its env, command or handles");
    }
  }
  check_tasks_and_plan_size(r, program);
}

}  // namespace slipway::core
