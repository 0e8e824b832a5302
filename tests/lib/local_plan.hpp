// Test helper (Catch2): the plan of a TOML topology on one local host of 64
// CPUs; a topology that does not parse or fit fails the test, showing why.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "slipway/core/plan.hpp"
#include "slipway/core/topology.hpp"

namespace slipway::test {

inline core::Plan local_plan_of(const std::string& toml) {
  auto topology = core::parse_topology(toml, "test.toml");
  for (const auto& d : topology.diagnostics) UNSCOPED_INFO(core::format_diagnostic(d));
  REQUIRE(topology.ok());
  auto planned = core::make_plan(*topology.program, core::local_allocation({1u, 64u, 0u, {}}));
  for (const auto& e : planned.errors) UNSCOPED_INFO(e.node + ": " + e.message);
  REQUIRE(planned.ok());
  return *planned.plan;
}

}  // namespace slipway::test
