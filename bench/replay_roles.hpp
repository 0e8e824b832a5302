// The load processes of `slipway-bench replay` (replay_roles.cpp): the
// arguments that start one, and its entry point.
#pragma once

#include <string>
#include <vector>

#include "replay_load.hpp"

namespace slipway::bench {

struct RoleSpec {
  bool learner = false;
  std::string service;  // redis | json | slipway
  std::string address;  // host:port, or the replay node's name (slipway)
  int id = 0;
  LoadWindow window;
  ReplayLoad load;
};

// The arguments after `slipway-bench replay` that run `spec` in a process.
std::vector<std::string> role_arguments(const RoleSpec& spec);

// `slipway-bench replay --role ...`: runs one role, prints `items=N
// requests=M`; throws on bad arguments or a failed service.
int role_main(const std::vector<std::string>& args);

}  // namespace slipway::bench
