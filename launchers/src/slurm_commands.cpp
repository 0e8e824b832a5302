// The Slurm commands the controller runs to their end (slurm_commands.hpp).
#include "slurm_commands.hpp"

#include <exception>

#include "slipway/base/environment.hpp"
#include "slipway/base/run_captured.hpp"
#include "slipway/launch/satellite_jobs.hpp"

namespace slipway::launch {
namespace {

// The one way a Slurm command runs: `argv`, exactly `env`, `input` on its
// standard input. Throws when it cannot start.
base::CapturedRun run_slurm_command(std::vector<std::string> argv, std::vector<std::string> env,
                                    std::string input = {}) {
  base::CaptureOptions options;
  options.argv = std::move(argv);
  options.env = std::move(env);
  options.input = std::move(input);
  return base::run_captured(options);
}

std::string first_line(const std::string& text) { return base::first_line(text, 300); }

}  // namespace

std::string scontrol(const std::vector<std::string>& commands) {
  std::string input;
  for (const auto& c : commands) input += c + "\n";
  try {
    return run_slurm_command({"scontrol"}, base::this_environment(), std::move(input)).out;
  } catch (const std::exception&) {
    return {};
  }
}

std::optional<std::string> sbatch(std::vector<std::string> argv, std::vector<std::string> env, std::string& why) {
  try {
    base::CapturedRun run = run_slurm_command(std::move(argv), std::move(env));
    if (auto id = parse_job_id(run.out); id && run.exit.success()) return id;
    why = "sbatch " + run.exit.describe() + ": " + first_line(run.err.empty() ? run.out : run.err);
  } catch (const std::exception& e) {
    why = std::string("cannot run sbatch: ") + e.what();
  }
  return std::nullopt;
}

std::optional<std::string> scancel(const std::string& id) {
  try {
    base::CapturedRun run = run_slurm_command({"scancel", id}, base::this_environment());
    if (run.exit.success()) return std::nullopt;
    return "scancel " + id + " " + run.exit.describe() + ": " + first_line(run.err);
  } catch (const std::exception& e) {
    return "cannot cancel satellite job " + id + ": " + e.what();
  }
}

}  // namespace slipway::launch
