// The command-line options of srun, sbatch and salloc (Slurm 22.05), as far
// as slipway needs them: which take a value, so that the plugin can tell an
// option's value from the command (srun, salloc) or batch script (sbatch)
// that ends the options.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace slipway::spank {

enum class Tool { srun, sbatch, salloc };

// How an option takes its value, as getopt_long sees it: `required` takes
// the rest of the word or the next word; `optional` only the rest of the
// word (`-I5`, `--nice=5`); `none` never.
enum class ArgKind { none, required, optional };

struct OptionSpec {
  std::string_view name;  // long name without "--"
  char short_name;        // '\0' when the option has no short form
  ArgKind kind;
  unsigned tools;         // bit mask of tool_bit(Tool)
};

constexpr unsigned tool_bit(Tool tool) { return 1U << static_cast<unsigned>(tool); }

// Every option of Slurm 22.05's common option table (src/common/slurm_opt.c)
// with the tools that accept it. Options of other SPANK plugins are not in
// it: their values must be written `--option=value` next to --program.
std::span<const OptionSpec> slurm_options();

// The long option `name` as getopt_long resolves it for `tool` among Slurm's
// options plus `extra` (the plugin's own): an exact name, else an
// unambiguous prefix (or an ambiguous one whose candidates all take their
// value the same way). nullopt when no option matches.
std::optional<OptionSpec> find_long_option(Tool tool, std::string_view name,
                                           std::span<const OptionSpec> extra = {});

// The short option `c` of `tool`; nullopt when it has none.
std::optional<OptionSpec> find_short_option(Tool tool, char c);

// The tool a process is, from its executable path or argv[0]
// (".../srun" -> srun); nullopt for anything else.
std::optional<Tool> tool_from_path(std::string_view path);

std::string_view tool_name(Tool tool);

}  // namespace slipway::spank
