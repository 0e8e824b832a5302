// The decision at the heart of the SPANK plugin: given the command line of
// srun, sbatch or salloc, what (if anything) to exec instead.
//   srun   [opts] --program=FILE  ->  slipway launch [--srun-arg=OPT]... FILE
//   sbatch [opts] --program=FILE  ->  slipway sbatch [--sbatch-arg=OPT]... FILE
//   salloc [opts] --program=FILE  ->  salloc [opts] slipway launch FILE
// (one --srun-arg/--sbatch-arg per original word, in order). Pure: no I/O.
#pragma once

#include <string>
#include <vector>

#include "slipway/spank/option_table.hpp"

namespace slipway::spank {

// core::env::kSpankReexec is set in the environment before the exec; while
// set, --program is refused (a program launched by slipway does not launch
// nested programs).

struct HandoverInput {
  Tool tool = Tool::srun;
  std::vector<std::string> cmdline;  // the tool's full argv, argv[0] included
  std::string slipway_bin;           // path of the slipway executable
  std::string tool_exe;              // path of the running tool (salloc re-exec)
  bool guard_set = false;            // core::env::kSpankReexec is in the environment
};

struct Handover {
  enum class Kind {
    exec,    // exec `argv` (argv[0] is the path)
    absent,  // no --program on the command line
    help,    // --help/--usage/--version: let the tool answer
    error,   // refuse: `message` says why and what to do
  };
  Kind kind = Kind::absent;
  std::vector<std::string> argv;
  std::string message;  // for the user; the caller adds the "slipway: " prefix
};

Handover decide_handover(const HandoverInput& input);

}  // namespace slipway::spank
