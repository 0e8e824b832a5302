// Submitting a batch script: `sbatch [ARGS...]` with the script on its
// standard input, sbatch's own output and exit status passed through.
#pragma once

#include <string>
#include <vector>

namespace slipway::jobscripts {

// Runs `sbatch_path ARGS...` (sbatch_path is searched in PATH when it has no
// '/') with this process's environment minus SLIPWAY_SPANK_REEXEC (the
// SPANK hand-over is complete once the script is written) and `script` on
// its stdin. Returns sbatch's status in the shell convention (128+signal
// when killed). Throws std::system_error when sbatch cannot be started.
int submit_batch_script(const std::string& script, const std::vector<std::string>& args,
                        const std::string& sbatch_path = "sbatch");

}  // namespace slipway::jobscripts
