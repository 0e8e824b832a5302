// Rules across keys and nodes (validate.hpp). Each message names the node
// and says what to change; docs/topology.md lists the same rules.
#include "validate.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "names.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/core/environment.hpp"

namespace slipway::core {
namespace {

std::string range_text(const ReplicaRange& r) {
  return r.elastic() ? std::to_string(r.min) + ":" + std::to_string(r.max) : std::to_string(r.min);
}

bool framework_needs_fixed_world(Framework f) {
  return f == Framework::tensorflow || f == Framework::jax || f == Framework::horovod ||
         f == Framework::paddle || f == Framework::mpi;
}

void check_program(Reader& r, const Program& program) {
  const SourceLocation at = program.name.where.known() ? program.name.where : SourceLocation{1, 1};
  if (program.nodes.empty()) {
    r.error(at, "the program has no nodes; add a [node.NAME] table with a command");
    return;
  }
  const bool all_daemons = std::all_of(program.nodes.begin(), program.nodes.end(),
                                       [](const NodeSpec& n) { return n.daemon.value; });
  if (all_daemons) {
    r.error(at, "every node of the program is a daemon, so it would stop at once (daemons stop "
                "when the other nodes finish); make at least one node daemon = false");
  }
  // [program.elastic] satellites needs no elastic node: satellite jobs also
  // replace the lost hosts of fixed nodes (docs/elastic.md).
}

void check_node_names(Reader& r, const Program& program) {
  std::map<std::string, const NodeSpec*> by_env_name;
  for (const NodeSpec& node : program.nodes) {
    const std::string& name = node.name.value;
    if (!is_valid_node_name(name)) {
      r.error(node.name.where, "node name " + in_quotes(name) +
                                   " is not valid; use letters, digits, '_', '-' and '.', starting "
                                   "with a letter (at most 64)");
      continue;
    }
    auto [it, inserted] = by_env_name.emplace(env_name_part(name), &node);
    if (!inserted) {
      r.error(node.name.where, "node names " + in_quotes(it->second->name.value) + " and " + in_quotes(name) +
                                   " both become " + it->first +
                                   " in SLIPWAY_ADDR_* variables; rename one of them");
    }
  }
}

void check_command(Reader& r, const NodeSpec& node) {
  if (!node.command.where.known() && node.type.value != NodeType::replay) {
    r.error(node.name.where, "node " + in_quotes(node.name.value) +
                                 " has no command; add command = [\"program\", \"arg\"] or "
                                 "command = \"program arg\"");
  }
}

void check_counts(Reader& r, const NodeSpec& node) {
  const std::string in = " in node " + in_quotes(node.name.value);
  if (node.hosts.value > node.replicas.value.min) {
    r.error(node.hosts.where, "'nodes'" + in + " is " + std::to_string(node.hosts.value) +
                                  " but the node has " + std::to_string(node.replicas.value.min) +
                                  " replica(s) at least; every host needs one, so lower 'nodes' or "
                                  "raise 'replicas'");
  }
  if (node.replicas.value.elastic() && framework_needs_fixed_world(node.framework.value)) {
    r.error(node.replicas.where, "'replicas'" + in + " is elastic, but framework " +
                                     in_quotes(to_string(node.framework.value)) +
                                     " needs a fixed world size; give an integer count (only "
                                     "torch and none nodes may be elastic)");
  }
  if (node.elastic.where.known() && !node.replicas.value.elastic()) {
    r.error(node.elastic.where, "'elastic'" + in + " applies to elastic nodes only, but 'replicas' is " +
                                    range_text(node.replicas.value) +
                                    "; give replicas = \"MIN:MAX\" or remove the table");
  }
  if (node.framework.value == Framework::tensorflow && !is_valid_tensorflow_job(node.name.value)) {
    r.error(node.name.where, "node " + in_quotes(node.name.value) +
                                 " uses framework 'tensorflow', whose job names allow only "
                                 "letters, digits and '_'; rename the node (e.g. "
                                 "'worker', 'ps', 'chief')");
  }
}

void check_ports(Reader& r, const NodeSpec& node) {
  const std::string in = " in node " + in_quotes(node.name.value);
  std::map<std::string, std::string> by_env_name;  // SLIPWAY_PORT_<X> -> port
  for (std::string_view reserved : reserved_port_names()) {
    by_env_name.emplace(env_name_part(reserved), std::string(reserved));
  }
  const auto& reserved = reserved_port_names();
  for (const auto& port : node.ports) {
    if (!is_valid_port_name(port.value)) {
      r.error(port.where, "port name " + in_quotes(port.value) + in +
                              " is not valid; use letters, digits, '_' and '-', starting with a "
                              "letter (at most 64)");
      continue;
    }
    if (std::find(reserved.begin(), reserved.end(), port.value) != reserved.end()) {
      r.error(port.where, "port name " + in_quotes(port.value) + in +
                              " is reserved for a framework's own port; choose another name");
      continue;
    }
    auto [it, inserted] = by_env_name.emplace(env_name_part(port.value), port.value);
    if (!inserted) {
      if (it->second == port.value) {
        r.error(port.where, "port " + in_quotes(port.value) + " is listed twice" + in + "; remove one");
      } else {
        r.error(port.where, "ports " + in_quotes(it->second) + " and " + in_quotes(port.value) + in +
                                " both become SLIPWAY_PORT_" + it->first + "; rename one of them");
      }
    }
  }
}

void check_env(Reader& r, const NodeSpec& node) {
  const auto& framework_vars = framework_variables(node.framework.value);
  const UcxSettings& ucx = node.ucx.value;
  const std::map<std::string_view, bool> ucx_set{
      {"UCX_TLS", ucx.tls.has_value()},
      {"UCX_NET_DEVICES", ucx.net_devices.has_value()},
      {"UCX_RNDV_THRESH", ucx.rndv_thresh.has_value()}};
  for (const EnvVar& var : node.env) {
    const std::string& name = var.name.value;
    if (std::find(framework_vars.begin(), framework_vars.end(), name) != framework_vars.end()) {
      r.error(var.name.where, "variable " + in_quotes(name) + " of 'env' in node " +
                                  in_quotes(node.name.value) + " is set by framework " +
                                  in_quotes(to_string(node.framework.value)) +
                                  "; remove it (slipway computes it for every task)");
    }
    if (auto it = ucx_set.find(name); it != ucx_set.end() && it->second) {
      r.error(var.name.where, "variable " + in_quotes(name) + " of 'env' in node " +
                                  in_quotes(node.name.value) +
                                  " is also set by its ucx table; keep one of the two");
    }
  }
}

bool exposes_ports(const NodeSpec& node) {
  return !node.ports.empty() || node.type.value != NodeType::exec;
}

void check_handles(Reader& r, const Program& program, const NodeSpec& node) {
  const std::string of = " of node " + in_quotes(node.name.value);
  std::vector<std::string_view> names;
  for (const NodeSpec& n : program.nodes) names.push_back(n.name.value);
  std::set<std::string> seen;
  std::map<std::string, std::string> addr_vars;  // SLIPWAY_ADDR_X_Y -> "node.port"
  for (const auto& handle : node.handles) {
    const NodeSpec* target = program.find_node(handle.value);
    if (target == nullptr) {
      std::string message = "handle " + in_quotes(handle.value) + of + " names no node of the program";
      const std::string_view suggestion = closest_key(handle.value, names);
      message += suggestion.empty() ? "; list existing node names"
                                    : "; did you mean " + in_quotes(suggestion) + "?";
      r.error(handle.where, std::move(message));
      continue;
    }
    if (!seen.insert(handle.value).second) {
      r.error(handle.where, "handle " + in_quotes(handle.value) + of + " is listed twice; remove one");
      continue;
    }
    if (!exposes_ports(*target)) {
      r.error(handle.where, "node " + in_quotes(node.name.value) + " handles " + in_quotes(handle.value) +
                                ", which declares no ports, so there is no address to hand over; "
                                "add ports = [\"NAME\"] to node " + in_quotes(handle.value) +
                                " or remove the handle");
      continue;
    }
    for (const auto& port : target->ports) {
      const std::string what = handle.value + "." + port.value;
      // SLIPWAY_ADDR_<NODE>_<PORT> and SLIPWAY_ADDR_FILE_<NODE>_<PORT>: a node
      // named file_x may collide with the address file of node x.
      for (const auto& [var, said] :
           {std::pair{env::address_variable(target->name.value, port.value), what},
            std::pair{env::address_file_variable(target->name.value, port.value),
                      "the address file of " + what}}) {
        auto [it, inserted] = addr_vars.emplace(var, said);
        if (!inserted && it->second != said) {
          r.error(handle.where, "handles" + of + " give " + it->second + " and " + said +
                                    " the same variable " + var + "; rename a node or a port");
        }
      }
    }
  }
}

void check_colocate_groups(Reader& r, const Program& program) {
  std::map<std::string, std::vector<const NodeSpec*>> groups;
  for (const NodeSpec& node : program.nodes) {
    if (!node.colocate.value.empty()) groups[node.colocate.value].push_back(&node);
  }
  for (const auto& [group, members] : groups) {
    const NodeSpec& first = *members.front();
    const std::string head = "node " + in_quotes(first.name.value);
    for (const NodeSpec* m : members) {
      const std::string node = "node " + in_quotes(m->name.value) + " in colocate group " + in_quotes(group);
      if (m->replicas.value != first.replicas.value) {
        r.error(m->colocate.where, node + " has replicas " + range_text(m->replicas.value) + " but " + head +
                                       " has " + range_text(first.replicas.value) +
                                       "; colocated nodes share hosts replica by replica, so give "
                                       "them the same replicas");
      }
      if (m->hosts.value != first.hosts.value) {
        r.error(m->colocate.where, node + " has a different 'nodes' than " + head + "; give them the same");
      }
      if (m->partition.value != first.partition.value || m->constraint.value != first.constraint.value) {
        r.error(m->colocate.where, node + " asks for a different partition or constraint than " + head +
                                       ", but colocated nodes share hosts; give them the same");
      }
      if ((m->framework.value == Framework::mpi) != (first.framework.value == Framework::mpi)) {
        r.error(m->colocate.where, node + " mixes framework 'mpi' with another framework; an MPI "
                                          "world cannot share its tasks with other frameworks: "
                                          "give them the same framework or separate the group");
      }
    }
  }
}

}  // namespace

void validate_program(Reader& r, const Program& program) {
  check_program(r, program);
  check_node_names(r, program);
  for (const NodeSpec& node : program.nodes) {
    check_command(r, node);
    check_counts(r, node);
    check_ports(r, node);
    check_env(r, node);
    check_handles(r, program, node);
    check_replay(r, node);
  }
  check_colocate_groups(r, program);
  check_scale(r, program);
}

}  // namespace slipway::core
