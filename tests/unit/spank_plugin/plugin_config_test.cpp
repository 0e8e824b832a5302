// plugstack.conf arguments and the choice of the slipway executable.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "slipway/spank/plugin_config.hpp"

using namespace slipway::spank;

TEST_CASE("slipway_bin= is read from the plugin arguments", "[spank][config]") {
  const std::vector<std::string> args{"slipway_bin=/opt/s/bin/slipway"};
  const auto r = parse_plugin_args(args);
  CHECK(r.error.empty());
  CHECK(r.config.slipway_bin == "/opt/s/bin/slipway");
  CHECK(parse_plugin_args({}).error.empty());
}

TEST_CASE("unknown or empty arguments are errors naming them", "[spank][config]") {
  auto r = parse_plugin_args(std::vector<std::string>{"slipwaybin=/x"});
  CHECK_THAT(r.error, Catch::Contains("'slipwaybin=/x'") && Catch::Contains("slipway_bin=PATH"));
  r = parse_plugin_args(std::vector<std::string>{"slipway_bin="});
  CHECK_FALSE(r.error.empty());
}

TEST_CASE("SLIPWAY_BIN, then slipway_bin=, then the built-in path", "[spank][config]") {
  PluginConfig configured;
  configured.slipway_bin = "/conf/slipway";
  CHECK(resolve_slipway_bin("/env/slipway", configured, "/usr/bin/slipway") == "/env/slipway");
  CHECK(resolve_slipway_bin("", configured, "/usr/bin/slipway") == "/conf/slipway");
  CHECK(resolve_slipway_bin(nullptr, configured, "/usr/bin/slipway") == "/conf/slipway");
  CHECK(resolve_slipway_bin(nullptr, PluginConfig{}, "/usr/bin/slipway") == "/usr/bin/slipway");
}
