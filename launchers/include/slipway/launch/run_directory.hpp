// The run directory of one program run: where the plan, the task logs and
// the rendezvous contact (for `slipway status` and `slipway stop`) live.
//
// Layout (docs/local.md):
//   ROOT/PROGRAM-YYYYmmdd-HHMMSS-PID/plan.json
//                                    logs/NODE.REPLICA.log
//                                    addrs/NODE.PORT  live addresses of a handled node (elastic.md)
//                                    rendezvous   endpoint and secret, mode 0600
//                                    exit         the program's exit status, once done
//                                    outcome.json how the run ended, just before exit (run_outcome.hpp)
//                                    resume, counters  what survives a resume (run_counters.hpp)
//                                    state/NODE   each node's directory that survives resumes
//                                    notice/NODE.REPLICA  the tasks' checkpoint notices
//                                    events.jsonl(.1)  the event record (docs/observe.md)
//                                    observe-token   the page's view token, mode 0600
//                                    prometheus/targets.json  file_sd target, while it runs
//   ROOT/latest, ROOT/PROGRAM.latest  symbolic links to the newest run
//   ROOT/PROGRAM.job-KEY              under Slurm: the run of job KEY (resume.md)
//   ROOT/.prometheus-RUN.json          file_sd target of a running program (observe.md)
// ROOT is $SLIPWAY_RUN_ROOT, else $HOME/.slipway/runs, else
// $TMPDIR/slipway-UID/runs (/tmp without TMPDIR). Directories slipway makes
// are 0700 (ROOT and its missing parents too), its files 0600: task logs
// and the rendezvous file may hold the program's secret. create() refuses
// a ROOT that another user could change (private_directory.hpp), before it
// writes anything there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <string_view>

#include "slipway/core/environment.hpp"

namespace slipway::launch {

std::string default_run_root();

struct RendezvousContact {
  std::string endpoint;
  std::string token;
  long launcher_pid = 0;
};

class RunDirectory {
 public:
  // Creates a fresh run directory for `program` under `root` and points the
  // latest links at it. Throws DirectoryRefused (private_directory.hpp) for
  // a root another user could change, std::runtime_error for other failures,
  // saying what failed.
  static RunDirectory create(const std::string& root, const std::string& program);
  // Opens the run directory at `path` (one holding plan.json) to run its
  // program again: its resume count goes up by one, its exit status and
  // outcome go, and every task log gets a banner line "----- slipway:
  // resume N of run NAME -----"; the notices of the start before (notice/*) are removed.
  // Throws std::runtime_error when `path` is no run directory
  // or cannot be written.
  // `program` names the latest links pointed at it.
  static RunDirectory resume(const std::string& path, const std::string& program);
  // The run of Slurm job `job_key` (the job id, or ARRAYJOB_TASK for an
  // array task): resumed when ROOT/PROGRAM.job-KEY points at a run
  // directory, else created and linked there.
  static RunDirectory for_job(const std::string& root, const std::string& program,
                              const std::string& job_key);

  // 0 at the first start, +1 per resume (SLIPWAY_RESUME).
  std::uint32_t resume_count() const { return resume_; }
  // Makes state/NODE for each of `nodes` (kept when there) and notice/.
  void make_task_directories(const std::vector<std::string>& nodes) const;

  const std::string& path() const { return path_; }
  std::string plan_path() const { return path_ + "/plan.json"; }
  std::string logs_path() const { return path_ + "/logs"; }
  std::string addresses_path() const { return core::address_directory(path_); }

  // Writes NAME atomically (a new NAME.tmp, never one that was there nor
  // where a link there points; then renamed; removed when anything fails).
  // Throws std::runtime_error naming the file and the reason.
  void write_file(const std::string& name, const std::string& content, int mode = 0600) const;
  void write_contact(const RendezvousContact& contact) const;
  void write_exit(int exit_code) const;

 private:
  RunDirectory(std::string path, std::uint32_t resume) : path_(std::move(path)), resume_(resume) {}
  std::string path_;
  std::uint32_t resume_ = 0;
};

// Whether `text` may name something under the run root (a program, a run,
// a node): letters, digits, '_', '-' and '.', starting with a letter or a
// digit, at most 256 bytes; never "..", never a path.
bool is_plain_name(std::string_view text);

// Finds a run directory from what the user typed: a run directory path (a
// directory holding plan.json), a run's name (a directory holding plan.json
// under ROOT), a program name (its newest run), or nothing
// (the newest run of any program). Returns nothing when there is none, or
// when `which` is neither a run directory nor a plain name (is_plain_name);
// `error` says where it looked, or what a name may hold.
std::optional<std::string> find_run_directory(const std::string& root, const std::string& which,
                                              std::string* error);

// Reads ROOT/.../rendezvous; nothing when absent, not a regular file
// (run_file.hpp) or malformed.
std::optional<RendezvousContact> read_contact(const std::string& run_directory);

}  // namespace slipway::launch
