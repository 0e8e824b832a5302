// Reads the command line of srun, sbatch or salloc the way their getopt_long
// does ("+" mode: options end at the first operand or at "--"), to find
// slipway's --program, the tool's other options, and whatever ends them.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "slipway/spank/option_table.hpp"

namespace slipway::spank {

// The plugin's own option, as srun/sbatch/salloc see it once registered.
inline constexpr OptionSpec kProgramOption{"program", '\0', ArgKind::required,
                                            tool_bit(Tool::srun) | tool_bit(Tool::sbatch) |
                                                tool_bit(Tool::salloc)};

struct ArgvScan {
  // The tool's arguments without the words of --program, in their order.
  std::vector<std::string> passthrough;
  // The value of each --program found (normally exactly one).
  std::vector<std::string> programs;
  // The first operand (srun/salloc: the command, sbatch: the script), when
  // one follows the options; `operand_is_separator` when it is ":" (the
  // start of another heterogeneous component).
  std::optional<std::string> operand;
  bool operand_is_separator = false;
  // -h/--help/--usage/-V/--version: the tool prints and exits by itself.
  bool help_requested = false;
  // An option needing a value came last, without one.
  std::optional<std::string> missing_value;
  // sbatch --wrap: the script is given inline.
  bool wraps_command = false;
};

// Scans `args` (argv without argv[0]) of `tool`. Words after the first
// operand are the command's own and are not looked at.
ArgvScan scan_tool_argv(Tool tool, std::span<const std::string> args);

}  // namespace slipway::spank
