// Reaching a running program's rendezvous from a command (`slipway status`,
// `slipway stop`): from inside a task through SLIPWAY_RDZV/SLIPWAY_TOKEN,
// otherwise through the run directory the launcher wrote.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "slipway/rendezvous/client.hpp"

namespace slipway::cli {

// `which`: a program name, a run directory, or empty (inside a task: its
// own program; elsewhere: the newest run). Throws std::runtime_error saying
// what was not found or could not be reached. `run_directory`, when
// given, is set to the program's run directory (inside a task:
// SLIPWAY_RUN_DIR, possibly empty).
std::unique_ptr<rendezvous::Client> connect_to_program(const std::string& which,
                                                       const std::string& run_root,
                                                       rendezvous::ClientOptions options = {},
                                                       std::string* run_directory = nullptr);


// Who asks, for the launcher's lines: "NODE.REPLICA" inside a task, else
// "slipway COMMAND (USER@HOST)".
std::string requester(const std::string& command);

}  // namespace slipway::cli
