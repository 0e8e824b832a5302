// The program graph as Graphviz DOT (core/program_dot.hpp): boxes, edges,
// colocate clusters and the quoting of every name.
#include <catch2/catch.hpp>

#include "core_test_support.hpp"
#include "slipway/core/program_dot.hpp"

using namespace slipway::core;
using slipway::core::test::parse_ok;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("dot_quoted escapes quotes, backslashes and line breaks") {
  CHECK(dot_quoted("learner") == "\"learner\"");
  CHECK(dot_quoted("a\"b") == "\"a\\\"b\"");
  CHECK(dot_quoted("a\\b") == "\"a\\\\b\"");
  CHECK(dot_quoted("a\\") == "\"a\\\\\"");  // a trailing backslash cannot swallow the closing quote
  CHECK(dot_quoted("two\nlines") == "\"two\\nlines\"");
  CHECK(dot_quoted(std::string("tab\tnul\0x", 9)) == "\"tab nul x\"");
  CHECK(dot_quoted("") == "\"\"");
}

TEST_CASE("the graph has a box per node with its type and replicas, and an edge per handle") {
  const Program program = parse_ok(R"(
[program]
name = "impala"
[node.replay]
type = "replay"
replicas = 2
[node.replay.tables.experience]
max_size = 10
[node.learner]
command = "learn"
ports = ["params"]
handles = ["replay"]
[node.actor]
command = "act"
replicas = "2:8"
handles = ["replay", "learner"]
)");
  const std::string dot = program_dot(program);
  CHECK(dot.rfind("digraph \"impala\" {\n", 0) == 0);
  CHECK(contains(dot, "  \"replay\" [label=\"replay\\nreplay, replicas 2, daemon\"];\n"));
  CHECK(contains(dot, "  \"learner\" [label=\"learner\\nexec, replicas 1\"];\n"));
  CHECK(contains(dot, "  \"actor\" [label=\"actor\\nexec, replicas 2:8\"];\n"));
  CHECK(contains(dot, "  \"learner\" -> \"replay\";\n  \"actor\" -> \"replay\";\n  \"actor\" -> \"learner\";\n"));
  CHECK(!contains(dot, "subgraph"));
  CHECK(dot.size() >= 2);
  CHECK(dot.substr(dot.size() - 2) == "}\n");
  // File order: the boxes appear as the nodes do in the file.
  CHECK(dot.find("\"replay\" [") < dot.find("\"learner\" ["));
  CHECK(dot.find("\"learner\" [") < dot.find("\"actor\" ["));
}

TEST_CASE("a colocate group is one cluster, written where its first node is") {
  const Program program = parse_ok(R"(
[program]
name = "pairs"
[node.a]
command = "a"
ports = ["p"]
colocate = "pair"
[node.solo]
command = "s"
[node.b]
command = "b"
colocate = "pair"
handles = ["a"]
)");
  const std::string dot = program_dot(program);
  CHECK(contains(dot,
                 "  subgraph \"cluster_colocate_pair\" {\n"
                 "    label=\"colocate pair\";\n"
                 "    style=dashed;\n"
                 "    \"a\" [label=\"a\\nexec, replicas 1\"];\n"
                 "    \"b\" [label=\"b\\nexec, replicas 1\"];\n"
                 "  }\n"));
  CHECK(dot.find("subgraph") < dot.find("\"solo\" ["));
  // Each node is declared once.
  CHECK(dot.find("\"b\" [") == dot.rfind("\"b\" ["));
  CHECK(contains(dot, "  \"b\" -> \"a\";\n"));
}

TEST_CASE("names the parser would refuse are still quoted safely") {
  // Built by hand: the topology rules keep such names out of a file, the
  // writer must not rely on it.
  Program program;
  program.name.value = "p\"q";
  NodeSpec node;
  node.name.value = "x\\\"y";
  node.command.value = {"true"};
  node.colocate.value = "g\"h";
  node.handles.push_back(Located<std::string>{"x\\\"y", {}});
  program.nodes.push_back(node);
  const std::string dot = program_dot(program);
  CHECK(contains(dot, "digraph \"p\\\"q\" {"));
  CHECK(contains(dot, "subgraph \"cluster_colocate_g\\\"h\" {"));
  CHECK(contains(dot, "\"x\\\\\\\"y\" [label=\"x\\\\\\\"y\\nexec, replicas 1\"];"));
  CHECK(contains(dot, "\"x\\\\\\\"y\" -> \"x\\\\\\\"y\";"));
}
