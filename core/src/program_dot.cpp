// Graphviz DOT of a program's topology (program_dot.hpp).
#include "slipway/core/program_dot.hpp"

#include <set>

namespace slipway::core {
namespace {

// The inside of a DOT quoted string (dot_quoted without the quotes).
std::string escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string replicas_text(const ReplicaRange& r) {
  if (r.elastic()) return std::to_string(r.min) + ":" + std::to_string(r.max);
  return std::to_string(r.min);
}

// "learner" on the first line, "exec, replicas 2" on the second.
std::string node_line(const NodeSpec& node, const std::string& indent) {
  std::string second = std::string(to_string(*node.type)) + ", replicas " + replicas_text(*node.replicas);
  if (*node.daemon) second += ", daemon";
  return indent + dot_quoted(*node.name) + " [label=\"" + escaped(*node.name) + "\\n" + escaped(second) +
         "\"];\n";
}

}  // namespace

std::string dot_quoted(std::string_view text) { return "\"" + escaped(text) + "\""; }

std::string program_dot(const Program& program) {
  std::string out = "digraph " + dot_quoted(*program.name) + " {\n";
  out += "  graph [rankdir=LR, label=" + dot_quoted("program " + *program.name) + ", labelloc=t];\n";
  out += "  node [shape=box, style=rounded, fontname=\"sans-serif\"];\n";
  std::set<std::string> groups_written;
  for (const auto& node : program.nodes) {
    const std::string& group = *node.colocate;
    if (group.empty()) {
      out += node_line(node, "  ");
      continue;
    }
    if (!groups_written.insert(group).second) continue;
    out += "  subgraph " + dot_quoted("cluster_colocate_" + group) + " {\n";
    out += "    label=" + dot_quoted("colocate " + group) + ";\n    style=dashed;\n";
    for (const auto& member : program.nodes) {
      if (*member.colocate == group) out += node_line(member, "    ");
    }
    out += "  }\n";
  }
  for (const auto& node : program.nodes) {
    for (const auto& handle : node.handles) {
      out += "  " + dot_quoted(*node.name) + " -> " + dot_quoted(*handle) + ";\n";
    }
  }
  out += "}\n";
  return out;
}

}  // namespace slipway::core
