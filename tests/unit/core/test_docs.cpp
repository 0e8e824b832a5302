// The docs match the code: docs/topology.md has a row for every key the
// parser knows (a replay node's too) and names every framework, implicit
// port and framework variable; docs/plan-json.md names every field
// plan_to_json writes, a replay node's configuration included.
#include <fstream>
#include <set>
#include <sstream>

#include "core_test_support.hpp"
#include "slipway/core/plan_json.hpp"

using namespace slipway::core;

namespace {

std::string read_doc(const char* path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void collect_keys(const nlohmann::json& j, std::set<std::string>& keys) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      keys.insert(key);
      collect_keys(value, keys);
    }
  } else if (j.is_array()) {
    for (const auto& value : j) collect_keys(value, keys);
  }
}

}  // namespace

TEST_CASE("docs/topology.md documents every key the parser knows", "[core][docs]") {
  const std::string doc = read_doc(SLIPWAY_TOPOLOGY_DOC);
  for (const char* table : {"", "program", "defaults", "node", "ucx", "elastic", "tables", "rate_limiter", "checkpoint"}) {
    for (std::string_view key : topology_keys(table)) {
      INFO("table [" << table << "] key " << key);
      CHECK(doc.find("| `" + std::string(key) + "` |") != std::string::npos);
    }
  }
}

TEST_CASE("docs/topology.md names every framework, implicit port and variable", "[core][docs]") {
  const std::string doc = read_doc(SLIPWAY_TOPOLOGY_DOC);
  for (Framework f : {Framework::none, Framework::torch, Framework::tensorflow, Framework::jax,
                      Framework::horovod, Framework::paddle, Framework::mpi}) {
    CHECK(doc.find("`" + std::string(to_string(f)) + "`") != std::string::npos);
    for (std::string_view var : framework_variables(f)) {
      INFO(var);
      CHECK(doc.find("`" + std::string(var) + "`") != std::string::npos);
    }
  }
  for (std::string_view port : reserved_port_names()) {
    INFO(port);
    CHECK(doc.find("`" + std::string(port) + "`") != std::string::npos);
  }
}

TEST_CASE("docs/plan-json.md names every field of the plan JSON", "[core][docs]") {
  const std::string doc = read_doc(SLIPWAY_PLAN_JSON_DOC);
  const Program p = test::parse_ok(R"(
[program]
name = "doc"
[node.a]
command = "a"
ucx = { tls = "tcp", net_devices = "eth0", rndv_thresh = "8k" }
[node.r]
type = "replay"
[node.r.tables.t]
sampler = { prioritized = 0.6 }
rate_limiter = { samples_per_insert = 2, error_buffer = 4 }
[node.r.tables.m]
[node.r.checkpoint]
every = "1m"
path = "ckpt"
)");
  std::set<std::string> keys;
  collect_keys(plan_to_json(test::plan_ok(p, test::hosts(1, 2))), keys);
  for (const std::string& key : keys) {
    INFO(key);
    CHECK(doc.find("`" + key + "`") != std::string::npos);
  }
}
