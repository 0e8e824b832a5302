// The salloc re-exec of the Slurm controller (salloc_reexec.hpp): the
// command line, the verdict file, and the signals passed on to salloc.
#include "salloc_reexec.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "slipway/base/environment.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/launch/salloc_arguments.hpp"

namespace slipway::launch {
namespace {

// The salloc this process waits for: where SIGTERM and SIGHUP go. A
// process runs one salloc at most, and a signal handler can reach nothing
// but a global.
std::atomic<pid_t> salloc_child{0};

void pass_on_to_salloc(int sig) {
  if (const pid_t pid = salloc_child.load(); pid > 0) ::kill(pid, sig);
}

LaunchOutcome launch_error(const std::string& message) {
  LaunchOutcome failed;
  failed.problems.push_back({message});
  return failed;
}

// salloc's command line: the allocation, then this controller again with
// the options it was given and `verdict`.
std::vector<std::string> salloc_command(const SlurmLaunchOptions& options, std::vector<std::string> args,
                                        const std::string& verdict) {
  std::vector<std::string> argv{"salloc"};
  for (auto& a : args) argv.push_back(std::move(a));
  argv.insert(argv.end(), {options.self_path, "launch", "--grace", std::to_string(options.grace.count() / 1000.0),
                           "--wire-timeout", std::to_string(options.wire_timeout.count() / 1000.0)});
  if (!options.run_root.empty()) argv.insert(argv.end(), {"--run-root", options.run_root});
  if (!options.metrics.empty()) argv.insert(argv.end(), {"--metrics", options.metrics});
  argv.insert(argv.end(), {"--verdict-file", verdict});
  argv.push_back(options.topology_path);
  return argv;
}

// How the program ended by the verdict file (read and removed) and
// salloc's own exit.
LaunchOutcome verdict_outcome(const std::string& verdict, const base::ExitStatus& exit) {
  std::ifstream in(verdict);
  int code = -1;
  const bool has_verdict = static_cast<bool>(in >> code);
  ::unlink(verdict.c_str());
  LaunchOutcome outcome;
  outcome.kind = LaunchOutcome::Kind::Ran;
  if (has_verdict) {
    outcome.program_status = code;  // the controller said how the program ended
  } else if (!exit.success()) {
    outcome.program_status = exit.shell_code();  // salloc's own failure, which it reported
  } else {
    outcome.kind = LaunchOutcome::Kind::Error;
    outcome.problems.push_back(
        {"the program's controller (slipway launch, run by salloc) ended without saying how the "
         "program ended: it was killed or crashed; the allocation was released and its tasks "
         "ended with it"});
  }
  return outcome;
}

}  // namespace

LaunchOutcome run_under_salloc(const SlurmLaunchOptions& options, const core::Program& program) {
  if (std::getenv(core::env::kLaunchInSalloc)) {
    return launch_error("error: salloc ran us without an allocation (SLURM_JOB_ID is not set)");
  }
  auto args = salloc_arguments(program, options.srun_args);
  if (requests_gres(args)) {
    unsetenv(core::env::kLaunchNoGpus);
  } else {
    setenv(core::env::kLaunchNoGpus, "1", 1);
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string verdict = std::string(tmp && *tmp ? tmp : "/tmp") + "/slipway-verdict-XXXXXX";
  {
    base::UniqueFd fd(::mkstemp(verdict.data()));
    if (!fd) return launch_error("error: cannot make a verdict file " + verdict + ": " + std::strerror(errno));
  }
  setenv(core::env::kLaunchInSalloc, "1", 1);
  base::SpawnOptions spawn;
  spawn.argv = salloc_command(options, std::move(args), verdict);
  spawn.env = base::this_environment();
  spawn.new_process_group = false;
  // Killed ourselves (the `srun` pid a user may kill -9): salloc revokes
  // the allocation, as it did when it ran in our place.
  spawn.parent_death_signal = SIGTERM;
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  signal(SIGTERM, pass_on_to_salloc);
  signal(SIGHUP, pass_on_to_salloc);
  base::ExitStatus exit;
  try {
    salloc_child = base::spawn(spawn);
    // Waits through the signals passed on meanwhile (EINTR).
    exit = base::wait_for(salloc_child);
  } catch (const std::exception& e) {
    ::unlink(verdict.c_str());
    return launch_error(std::string("error: cannot run salloc: ") + e.what());
  }
  return verdict_outcome(verdict, exit);
}

}  // namespace slipway::launch
