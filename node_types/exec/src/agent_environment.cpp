// The task's starting environment: inherited, then slipway's variables.
#include "slipway/exec/agent_environment.hpp"

#include <unordered_map>

namespace slipway::exec {

std::vector<std::string> inherited_environment(char** environ_array) {
  std::vector<std::string> env;
  for (char** entry = environ_array; entry && *entry; ++entry) env.emplace_back(*entry);
  return env;
}

void merge_environment(std::vector<std::string>& env, const core::EnvMap& added) {
  std::unordered_map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < env.size(); ++i) {
    position.emplace(env[i].substr(0, env[i].find('=')), i);
  }
  for (const auto& [name, value] : added) {
    std::string entry = name + "=" + value;
    if (auto it = position.find(name); it != position.end()) {
      env[it->second] = std::move(entry);
    } else {
      env.push_back(std::move(entry));
    }
  }
}

}  // namespace slipway::exec
