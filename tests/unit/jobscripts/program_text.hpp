// Test helper: a validated Program from TOML text (fails the test otherwise).
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "slipway/core/topology.hpp"

inline slipway::core::Program program_from(const std::string& toml) {
  auto result = slipway::core::parse_topology(toml, "/jobs/t.toml");
  for (const auto& d : result.diagnostics) {
    UNSCOPED_INFO(slipway::core::format_diagnostic(d));
  }
  REQUIRE(result.ok());
  return *result.program;
}
