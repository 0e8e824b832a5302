// The Slurm commands the controller runs to their end and reads (scontrol,
// sbatch, scancel): each one through base::run_captured, with an argv,
// never a shell. (srun, which runs as long as its step, is spawned by the
// controller itself.)
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace slipway::launch {

// What scontrol prints for `commands` given on its standard input, one a
// line: one process for every query (its start-up and authentication cost
// more than the queries). Empty when it fails.
std::string scontrol(const std::vector<std::string>& commands);

// sbatch with `argv` (sbatch's whole command line, --parsable) and exactly
// `env`: the id of the job it submitted, or nothing (`why` says why: how
// sbatch ended and the first line it printed, or why it did not run).
std::optional<std::string> sbatch(std::vector<std::string> argv, std::vector<std::string> env, std::string& why);

// scancel of job `id`: nothing when it ran and succeeded, else a line for
// the user saying what went wrong.
std::optional<std::string> scancel(const std::string& id);

}  // namespace slipway::launch
