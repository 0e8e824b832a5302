// A child's environment from this process's (environment.hpp).
#include "slipway/base/environment.hpp"

#include <unordered_map>

namespace slipway::base {

std::string_view entry_name(std::string_view entry) { return entry.substr(0, entry.find('=')); }

std::vector<std::string> this_environment(char** from) {
  std::vector<std::string> env;
  for (char** e = from; e && *e; ++e) env.emplace_back(*e);
  return env;
}

std::vector<std::string> environment_without(const std::function<bool(std::string_view entry)>& drop,
                                             char** from) {
  std::vector<std::string> env;
  for (char** e = from; e && *e; ++e) {
    if (!drop(*e)) env.emplace_back(*e);
  }
  return env;
}

std::vector<std::string> environment_with(const std::vector<std::string>& set, char** from) {
  std::unordered_map<std::string_view, const std::string*> replacing;
  for (const auto& entry : set) replacing[entry_name(entry)] = &entry;
  std::vector<std::string> env;
  for (char** e = from; e && *e; ++e) {
    const auto it = replacing.find(entry_name(*e));
    if (it == replacing.end()) {
      env.emplace_back(*e);
    } else if (it->second) {
      env.push_back(*it->second);
      it->second = nullptr;  // set once, where the first entry of that name was
    }
  }
  for (const auto& entry : set) {
    const auto it = replacing.find(entry_name(entry));
    if (it->second == &entry) env.push_back(entry);
  }
  return env;
}

}  // namespace slipway::base
