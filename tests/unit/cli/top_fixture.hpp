// The fixture status documents of the `slipway top` tests: read from
// fixtures/, and changed in place for a second document.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace slipway::cli::top::test {

inline nlohmann::json fixture(const std::string& name) {
  std::ifstream in(std::string(SLIPWAY_TOP_FIXTURES) + "/" + name);
  if (!in) throw std::runtime_error("missing fixture " + name);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

// fixtures/status_first.json two seconds later: replay.0 used 1 s of CPU,
// each learner task 2 s, actor.0 1 s (no usage time: the document's is
// used), actor.1 none; the replay table took 2000 inserts, 500 samples.
inline nlohmann::json second_document() {
  nlohmann::json doc = fixture("status_first.json");
  doc["unix_ms"] = doc["unix_ms"].get<std::int64_t>() + 2000;
  auto& nodes = doc["nodes"];
  auto bump = [](nlohmann::json& task, double cpu) {
    task["cpu_seconds"] = task["cpu_seconds"].get<double>() + cpu;
    if (task.contains("usage_unix_ms")) task["usage_unix_ms"] = task["usage_unix_ms"].get<std::int64_t>() + 2000;
  };
  bump(nodes[0]["tasks"][0], 1.0);
  bump(nodes[1]["tasks"][0], 2.0);
  bump(nodes[1]["tasks"][1], 2.0);
  bump(nodes[2]["tasks"][0], 1.0);
  auto& shard = doc["replay"][0];
  shard["unix_ms"] = shard["unix_ms"].get<std::int64_t>() + 2000;
  shard["tables"][0]["inserted_total"] = 102000;
  shard["tables"][0]["sampled_total"] = 50500;
  return doc;
}

}  // namespace slipway::cli::top::test
