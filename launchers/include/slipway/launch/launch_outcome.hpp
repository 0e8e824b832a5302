// LaunchOutcome: what a launcher (run_local, run_slurm) hands back to its
// caller. The launchers print only progress lines while they run (through
// `say`: "running program ...", "restarting x", "program 'p' finished: ...",
// a task's failure with its log); loading the topology, printing why a
// program did not start, and mapping the outcome to an exit status are the
// caller's (cli/launch_report.hpp).
#pragma once

#include <string>
#include <vector>

#include "slipway/launch/supervisor.hpp"

namespace slipway::launch {

// How one launch unit (a task, or a colocated group replica) ended.
struct UnitResult {
  std::string name;
  UnitState state = UnitState::Pending;  // Pending: never started
  int attempts = 0;                      // its last attempt + 1 (0: never started)
};

// A reason the program did not run: one line, then indented detail lines.
struct LaunchProblem {
  std::string message;
  std::vector<std::string> details{};
};

struct LaunchOutcome {
  enum class Kind {
    Ran,      // the program ran; program_status says how it ended
    Invalid,  // nothing started: the topology or a setting is wrong
    Error,    // the launcher could not run the program
  };
  Kind kind = Kind::Error;
  // Ran: 0 when every non-daemon unit succeeded, 1 when one failed beyond
  // its max_retries, 128 + N when stopped by signal N (0 by `slipway stop`).
  int program_status = 0;
  std::string message;        // Ran: how it ended, in the supervisor's words
  std::string run_directory;  // empty when none was created
  std::vector<UnitResult> units;       // Ran: in plan order
  std::vector<LaunchProblem> problems;  // Invalid, Error: why
};

}  // namespace slipway::launch
