// This process's environment as a child's: "NAME=VALUE" entries for
// base::SpawnOptions::env, without some and with others set.
//
// Contract:
// - `from` is an environ-style array (NULL-terminated; null: none); by
//   default this process's own.
// - this_environment() is every entry, in order.
// - environment_without() keeps every entry in order except those `drop`
//   is true for (it sees the whole "NAME=VALUE" entry).
// - environment_with() is the environment with each "NAME=VALUE" of
//   `set` in place of an entry of that name (appended when there is none):
//   never two entries of one name.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

extern "C" char** environ;

namespace slipway::base {

std::vector<std::string> this_environment(char** from = environ);

std::vector<std::string> environment_without(const std::function<bool(std::string_view entry)>& drop,
                                             char** from = environ);

std::vector<std::string> environment_with(const std::vector<std::string>& set, char** from = environ);

// The name of a "NAME=VALUE" entry (the whole entry when it has no '=').
std::string_view entry_name(std::string_view entry);

}  // namespace slipway::base
