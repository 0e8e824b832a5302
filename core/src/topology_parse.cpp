// load_topology / parse_topology: TOML text -> Program, the top-level tables
// ([program], [defaults], [node.*]); per-key reading is in node_table.cpp and
// the rules across keys and nodes in validate.cpp.
#include <algorithm>
#include <filesystem>
#include <system_error>

#include "file_text.hpp"
#include "limits.hpp"
#include "names.hpp"
#include "node_table.hpp"
#include "reader.hpp"
#include "replay_table.hpp"
#include "validate.hpp"

namespace slipway::core {
namespace {

void read_program(Reader& r, const toml::node& v, Program& program) {
  const auto* t = v.as_table();
  if (t == nullptr) {
    r.error(location_of(v), "'program' must be a table; write [program] with name = \"...\"");
    return;
  }
  program.name.where = location_of(v);
  bool has_name = false;
  for (const auto& [key, value] : *t) {
    if (key == "name") {
      has_name = true;
      program.name.where = location_of(value);
      auto name = r.nonempty_string(value, "'name' in [program]");
      if (!name) continue;
      if (!is_valid_program_name(*name)) {
        r.error(location_of(value), "'name' in [program] '" + shown(*name) +
                                        "' is not a valid program name; use up to " +
                                        std::to_string(limits::kMaxNameLength) +
                                        " letters, digits, '_', '-' and '.'");
        continue;
      }
      program.name.value = std::move(*name);
    } else if (key == "max_retries") {
      program.max_retries.where = location_of(value);
      if (auto i = r.integer(value, "'max_retries' in [program]", 0, limits::kMaxRetries)) {
        program.max_retries.value = static_cast<std::uint32_t>(*i);
      }
    } else if (key == "elastic") {
      read_elastic_table(r, value, program.elastic, "'elastic' in [program]", true);
    } else if (key == "metrics_port") {
      program.metrics_port.where = location_of(value);
      if (auto i = r.integer(value, "'metrics_port' in [program]", 0, 65535)) {
        program.metrics_port.value = static_cast<std::int32_t>(*i);
      }
    } else {
      r.unknown_key(key, "in [program]", topology_keys("program"));
    }
  }
  if (!has_name) {
    r.error(location_of(v), "[program] has no name; add name = \"my-program\"");
  }
}

// False when the program has too many nodes to read (reported at the first
// one over the limit, in file order).
bool read_nodes(Reader& r, const toml::node& v, const toml::table* defaults, Program& program) {
  const auto* t = v.as_table();
  if (t == nullptr) {
    r.error(location_of(v), "'node' must hold tables; write [node.NAME] for each node");
    return true;
  }
  if (t->size() > limits::kMaxNodes) {
    std::vector<SourceLocation> where;
    for (const auto& entry : *t) where.push_back(location_of(entry.first));
    std::nth_element(where.begin(), where.begin() + limits::kMaxNodes, where.end());
    r.error(where[limits::kMaxNodes],
            "the program has " + std::to_string(t->size()) + " nodes, more than the limit of " +
                std::to_string(limits::kMaxNodes) + " (this is node " +
                std::to_string(limits::kMaxNodes + 1) +
                "); use fewer nodes with more replicas each");
    return false;
  }
  for (const auto& [key, value] : *t) {
    const std::string name(key.str());
    const auto* table = value.as_table();
    if (table == nullptr) {
      r.error(location_of(value), "node '" + shown(name) + "' must be a table, not " +
                                      std::string(type_name(value)) + "; write [node." + shown(name) + "]");
      continue;
    }
    NodeSpec spec;
    spec.name = {name, location_of(key)};
    const std::string where_text = "in node '" + shown(name) + "'";
    if (defaults != nullptr) {  // reported once, by read_defaults
      r.set_muted(true);
      read_node_table(r, *defaults, spec, where_text, true);
      r.set_muted(false);
    }
    read_node_table(r, *table, spec, where_text, false);
    program.nodes.push_back(std::move(spec));
  }
  // toml++ keeps keys sorted; the program keeps the file's order.
  std::stable_sort(program.nodes.begin(), program.nodes.end(),
                   [](const NodeSpec& a, const NodeSpec& b) { return a.name.where < b.name.where; });
  return true;
}

// Defaults for what the file left unset: max_retries from [program], workdir
// from the topology's directory, a replay node's command and daemon.
void finish_nodes(Program& program) {
  const std::filesystem::path base(program.base_dir);
  for (NodeSpec& node : program.nodes) {
    if (!node.max_retries.where.known()) node.max_retries = program.max_retries;
    finish_replay_node(node);
    if (node.workdir.value.empty()) {
      node.workdir.value = program.base_dir;
    } else {
      node.workdir.value = (base / node.workdir.value).lexically_normal().string();
      if (node.workdir.value.size() > 1 && node.workdir.value.back() == '/') {
        node.workdir.value.pop_back();
      }
    }
  }
}

std::string absolute_directory_of(const std::string& filename) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(filename, ec);
  if (ec) p = std::filesystem::path(filename);
  return p.lexically_normal().parent_path().string();
}

}  // namespace

TopologyResult parse_topology(std::string_view text, const std::string& filename) {
  TopologyResult result;
  Reader r(filename, result.diagnostics);
  if (text.size() > limits::kMaxTopologyBytes) {
    r.error({}, "is larger than " + std::to_string(limits::kMaxTopologyBytes >> 20) +
                    " MiB; a topology should be a few kilobytes");
    return result;
  }
  toml::table root;
  try {
    root = toml::parse(text, filename);
  } catch (const toml::parse_error& e) {
    r.error({e.source().begin.line, e.source().begin.column},
            "TOML syntax error: " + std::string(e.description()));
    return result;
  }

  Program program;
  program.source_file = filename;
  program.base_dir = absolute_directory_of(filename);

  const toml::node* program_table = nullptr;
  const toml::node* defaults_table = nullptr;
  const toml::node* node_table = nullptr;
  for (const auto& [key, value] : root) {
    if (key == "program") {
      program_table = &value;
    } else if (key == "defaults") {
      defaults_table = &value;
    } else if (key == "node") {
      node_table = &value;
    } else {
      r.unknown_key(key, "at the top level", topology_keys(""));
    }
  }
  if (program_table != nullptr) {
    read_program(r, *program_table, program);
  } else {
    r.error({1, 1}, "no [program] table; add [program] with name = \"my-program\"");
  }
  const toml::table* defaults = nullptr;
  if (defaults_table != nullptr) {
    defaults = defaults_table->as_table();
    if (defaults == nullptr) {
      r.error(location_of(*defaults_table), "'defaults' must be a table; write [defaults]");
    } else {
      NodeSpec scratch;
      read_node_table(r, *defaults, scratch, "in [defaults]", true);
    }
  }
  const bool nodes_read = node_table == nullptr || read_nodes(r, *node_table, defaults, program);
  finish_nodes(program);
  if (nodes_read) validate_program(r, program);

  sort_diagnostics(result.diagnostics);
  auto same = [](const Diagnostic& a, const Diagnostic& b) {
    return a.where == b.where && a.message == b.message;
  };
  result.diagnostics.erase(std::unique(result.diagnostics.begin(), result.diagnostics.end(), same),
                           result.diagnostics.end());
  if (result.diagnostics.empty()) result.program = std::move(program);
  return result;
}

TopologyResult load_topology(const std::string& path) {
  std::string error;
  const auto text = read_text_file(path, limits::kMaxTopologyBytes, error);
  if (!text) {
    TopologyResult result;
    result.diagnostics.push_back(Diagnostic{display_name(path), {}, "cannot open: " + error});
    return result;
  }
  return parse_topology(*text, display_name(path));
}

}  // namespace slipway::core
