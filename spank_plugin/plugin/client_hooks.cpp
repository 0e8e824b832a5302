// slipway.so in srun, sbatch and salloc: registers --program and hands the
// command over to slipway (see slipway/spank/handover.hpp for what runs).
//   srun, salloc: from the option callback. srun with --program and no
//     command would die with "No command given" before any later hook.
//   sbatch: from slurm_spank_init, because sbatch reads its script (from
//     stdin when none is named) before it calls any option callback.
// The exec keeps the pid, environment, working directory and terminal; it
// unblocks the signals the tool blocked and closes the tool's other fds.
#include <signal.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "plugin_state.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/spank/cmdline.hpp"
#include "slipway/spank/handover.hpp"

#ifndef SLIPWAY_DEFAULT_BIN
#error "SLIPWAY_DEFAULT_BIN must be defined by the build"
#endif

namespace slipway::spank::plugin {
namespace {

int program_option_cb(int val, const char* optarg, int remote) noexcept;

char kOptName[] = "program";
char kOptArg[] = "FILE";
char kOptUsage[] =
    "run the slipway program (TOML topology) FILE: srun launches it as job steps, "
    "sbatch submits a batch script for it, salloc runs it in the new allocation";

struct spank_option program_option = {kOptName, kOptArg, kOptUsage, 1, 0, program_option_cb};

std::string self_exe() {
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  return n > 0 ? std::string(buf.data(), static_cast<std::size_t>(n)) : std::string();
}

void reset_signals() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGCHLD,
                  SIGTSTP, SIGTTIN, SIGTTOU}) {
    signal(sig, SIG_DFL);
  }
}

// Execs h.argv; returns -1 (after reporting) only when that fails.
int exec_handover(const Handover& h) {
  const std::string& path = h.argv.front();
  if (::access(path.c_str(), X_OK) != 0) {
    const std::string msg = "cannot run " + path + ": " + std::strerror(errno) +
                            " (set slipway_bin=PATH in plugstack.conf, or " + core::env::kBin +
                            ")";
    report_error(msg.c_str());
    return -1;
  }
  std::vector<char*> argv;
  argv.reserve(h.argv.size() + 1);
  for (const auto& word : h.argv) {
    argv.push_back(const_cast<char*>(word.c_str()));
  }
  argv.push_back(nullptr);

  ::setenv(core::env::kSpankReexec, "1", 1);
  reset_signals();
  ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  ::execv(path.c_str(), argv.data());

  const std::string msg = "cannot exec " + path + ": " + std::strerror(errno);
  ::unsetenv(core::env::kSpankReexec);
  report_error(msg.c_str());
  return -1;
}

// Reads this process's command line and decides what to exec.
Handover decide(Tool tool) {
  std::string error;
  auto cmdline = read_cmdline("/proc/self/cmdline", error);
  if (!cmdline) {
    Handover h;
    h.kind = Handover::Kind::error;
    h.message = error;
    return h;
  }
  HandoverInput input;
  input.tool = tool;
  input.cmdline = std::move(*cmdline);
  input.slipway_bin =
      resolve_slipway_bin(std::getenv(core::env::kBin), state().config, SLIPWAY_DEFAULT_BIN);
  input.tool_exe = self_exe();
  input.guard_set = std::getenv(core::env::kSpankReexec) != nullptr;
  return decide_handover(input);
}

// Acts on a decision; `from_callback` tells whether --program was seen by
// the tool's own option parser (callback) or only looked for (init).
int act(Tool tool, const Handover& h, bool from_callback) {
  switch (h.kind) {
    case Handover::Kind::exec:
      return exec_handover(h);
    case Handover::Kind::help:
      return 0;
    case Handover::Kind::error:
      report_error(h.message.c_str());
      return -1;
    case Handover::Kind::absent:
      if (!from_callback) {
        return 0;
      }
      {
        const std::string msg =
            "--program must be given on the " + std::string(tool_name(tool)) +
            " command line (not in #SBATCH lines or SLURM_SPANK__SLURM_SPANK_OPTION_slipway_program)";
        report_error(msg.c_str());
      }
      return -1;
  }
  return -1;
}

std::optional<Tool> current_tool() { return tool_from_path(self_exe()); }

int program_option_cb(int /*val*/, const char* /*optarg*/, int remote) noexcept {
  try {
    if (remote != 0) {
      return 0;
    }
    const auto tool = current_tool();
    if (!tool) {
      return 0;  // another Slurm client (e.g. scrontab): nothing to hand over
    }
    if (*tool == Tool::sbatch) {
      // slurm_spank_init found no --program on the command line, so this
      // one came from a #SBATCH line or the environment.
      return act(*tool, Handover{}, true);
    }
    return act(*tool, decide(*tool), true);
  } catch (const std::exception& e) {
    slurm_error("slipway: internal error in the --program callback: %s", e.what());
  } catch (...) {
    slurm_error("slipway: internal error in the --program callback");
  }
  return -1;
}

}  // namespace

int client_init(spank_t sp, int ac, char** av) {
  const std::vector<std::string> args(av, av + ac);
  auto parsed = parse_plugin_args(args);
  if (!parsed.error.empty()) {
    report_error(parsed.error.c_str());
    return -1;
  }
  state().config = std::move(parsed.config);

  if (spank_option_register(sp, &program_option) != ESPANK_SUCCESS) {
    report_error("cannot register the --program option");
    return -1;
  }
  const auto tool = current_tool();
  if (tool == Tool::sbatch) {
    return act(*tool, decide(*tool), false);
  }
  return 0;
}

}  // namespace slipway::spank::plugin
