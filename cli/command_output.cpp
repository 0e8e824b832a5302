// Running a helper program and reading its output (see header), over
// base::run_captured.
#include "command_output.hpp"

#include "slipway/base/environment.hpp"
#include "slipway/base/run_captured.hpp"

namespace slipway::cli {

CommandOutput run_for_output(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                             const std::string& input, const std::vector<std::string>& extra_env,
                             std::size_t max_bytes) {
  CommandOutput result;
  base::CaptureOptions options;
  options.argv = argv;
  options.env = base::environment_with(extra_env);
  options.input = input;
  options.merge_stderr = true;
  options.timeout = timeout;
  options.max_bytes = max_bytes;
  try {
    base::CapturedRun run = base::run_captured(options);
    result.started = true;
    result.timed_out = run.timed_out;
    result.exit_code = run.exit.shell_code();
    result.output = std::move(run.out);
  } catch (const std::exception& e) {
    result.output = e.what();
  }
  return result;
}

}  // namespace slipway::cli
