// plugstack.conf arguments of the slipway SPANK plugin.
#include "slipway/spank/plugin_config.hpp"

namespace slipway::spank {

PluginConfigResult parse_plugin_args(std::span<const std::string> args) {
  PluginConfigResult result;
  constexpr std::string_view kBin = "slipway_bin=";
  for (const auto& arg : args) {
    if (arg.starts_with(kBin) && arg.size() > kBin.size()) {
      result.config.slipway_bin = arg.substr(kBin.size());
    } else {
      result.error = "plugstack.conf: unknown argument '" + arg +
                     "' for slipway.so (known: slipway_bin=PATH)";
      return result;
    }
  }
  return result;
}

std::string resolve_slipway_bin(const char* env_value, const PluginConfig& config,
                                std::string_view built_in) {
  if (env_value != nullptr && *env_value != '\0') {
    return env_value;
  }
  if (config.slipway_bin) {
    return *config.slipway_bin;
  }
  return std::string(built_in);
}

}  // namespace slipway::spank
