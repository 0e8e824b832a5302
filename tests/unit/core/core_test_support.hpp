// Helpers shared by the core unit tests: parse a topology that must be
// valid, plan it on simple hosts, and resolve every address a task needs.
#pragma once

#include <catch2/catch.hpp>

#include "slipway/core/environment.hpp"
#include "slipway/core/plan.hpp"
#include "slipway/core/topology.hpp"

namespace slipway::core::test {

// Parses `text`; fails the test with every diagnostic if it is not valid.
inline Program parse_ok(const std::string& text, const std::string& filename = "/topo/test.toml") {
  TopologyResult result = parse_topology(text, filename);
  std::string report;
  for (const auto& d : result.diagnostics) report += format_diagnostic(d) + "\n";
  INFO(report);
  REQUIRE(result.ok());
  return std::move(*result.program);
}

// The diagnostics of an invalid topology, formatted.
inline std::vector<std::string> parse_errors(const std::string& text) {
  TopologyResult result = parse_topology(text, "t.toml");
  REQUIRE_FALSE(result.ok());
  std::vector<std::string> out;
  for (const auto& d : result.diagnostics) out.push_back(format_diagnostic(d));
  return out;
}

inline Allocation hosts(std::uint32_t count, std::uint32_t cpus, std::uint32_t gpus = 0,
                        std::uint64_t mem_mb = 0, const std::string& prefix = "fn") {
  Allocation a;
  for (std::uint32_t i = 0; i < count; ++i) {
    a.hosts.push_back(Host{prefix + std::to_string(i + 1), "10.0.0." + std::to_string(i + 11), cpus, gpus,
                           mem_mb, {}});
  }
  return a;
}

inline Plan plan_ok(const Program& program, const Allocation& allocation) {
  PlanResult result = make_plan(program, allocation);
  std::string report;
  for (const auto& e : result.errors) report += e.message + "\n";
  INFO(report);
  REQUIRE(result.ok());
  return std::move(*result.plan);
}

// Port of (task id, port name): 20000 + 10 * id + index of the port in the task.
inline std::uint16_t test_port(const Plan& plan, const AddressRef& ref) {
  const Task* t = plan.find_task(ref.node, ref.replica);
  REQUIRE(t != nullptr);
  for (std::size_t i = 0; i < t->ports.size(); ++i) {
    if (t->ports[i] == ref.port) return static_cast<std::uint16_t>(20000 + 10 * t->id + i);
  }
  FAIL("task " << t->name() << " has no port " << ref.port);
  return 0;
}

// Every port of every task, at its host's address.
inline ResolvedAddresses resolve_all(const Plan& plan) {
  ResolvedAddresses a;
  for (const Task& t : plan.tasks) {
    for (const std::string& port : t.ports) {
      const AddressRef ref{t.node, t.replica, port};
      a.set(ref, Endpoint{plan.host(t).address, test_port(plan, ref)});
    }
  }
  return a;
}

}  // namespace slipway::core::test
