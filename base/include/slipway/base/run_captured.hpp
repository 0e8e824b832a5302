// Running a short command to its end and capturing what it printed: the
// Slurm commands (scontrol, sbatch, scancel), munge, ucx_info; run with an
// argv, never through a shell.
//
// Contract:
// - run_captured() spawns `argv` (base::spawn: PATH search, exactly `env`),
//   writes `input` to its standard input (then closes it), and reads its
//   standard output and error together, so that neither pipe can fill and
//   stall it, until both close; then reaps it. With `merge_stderr` its
//   standard error goes to `out` too (one pipe, in the order written).
// - Without a timeout it runs in this process group (Ctrl-C reaches it
//   too). With one it runs in a process group of its own, which is killed
//   (SIGKILL) at the timeout: `timed_out` is set and its status is the kill.
// - Each of out and err keeps at most `max_bytes` (the rest is read and
//   dropped; `truncated` says so).
// - A command that cannot be started throws std::system_error (as spawn()
//   does); a command that stops reading its input early is not an error
//   (its status says what happened; no SIGPIPE reaches this process).
// - first_line() is the first line of a text, cut at `max_chars` (with
//   "..."), for one-line messages about a command's output.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "slipway/base/process.hpp"

namespace slipway::base {

struct CapturedRun {
  ExitStatus exit;
  std::string out;
  std::string err;
  bool truncated = false;
  bool timed_out = false;
};

struct CaptureOptions {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // the child's whole environment
  std::string input;             // its standard input (empty: none)
  bool merge_stderr = false;
  std::optional<std::chrono::milliseconds> timeout;
  std::size_t max_bytes = 64 * 1024;
};

CapturedRun run_captured(const CaptureOptions& options);

std::string first_line(const std::string& text, std::size_t max_chars = 200);

}  // namespace slipway::base
