// The plugin's configuration: its plugstack.conf arguments and where the
// slipway executable is.
//   plugstack.conf:  optional /usr/lib/slurm/slipway.so slipway_bin=/opt/slipway/bin/slipway
// Precedence for the executable: $SLIPWAY_BIN, then slipway_bin=, then the
// path configured at build time (the install prefix's bin/slipway).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace slipway::spank {

struct PluginConfig {
  std::optional<std::string> slipway_bin;
};

struct PluginConfigResult {
  PluginConfig config;
  std::string error;  // empty when every argument was understood
};

// Parses the plugin's plugstack.conf arguments. An unknown or empty
// argument is an error naming it and the known ones.
PluginConfigResult parse_plugin_args(std::span<const std::string> args);

// The slipway executable to exec: `env_value` ($SLIPWAY_BIN, may be null or
// empty), else config.slipway_bin, else `built_in`.
std::string resolve_slipway_bin(const char* env_value, const PluginConfig& config,
                                std::string_view built_in);

}  // namespace slipway::spank
