// The run directory of one program run: where the plan, the task logs and
// the rendezvous contact (for `slipway status` and `slipway stop`) live.
//
// Layout (docs/local.md):
//   ROOT/PROGRAM-YYYYmmdd-HHMMSS-PID/plan.json
//                                    logs/NODE.REPLICA.log
//                                    addrs/NODE.PORT  live addresses of a handled node (elastic.md)
//                                    rendezvous   endpoint and secret, mode 0600
//                                    exit         the program's exit status, once done
//   ROOT/latest, ROOT/PROGRAM.latest  symbolic links to the newest run
// ROOT is $SLIPWAY_RUN_ROOT, else $HOME/.slipway/runs, else
// $TMPDIR/slipway-UID/runs (/tmp without TMPDIR). Directories slipway makes
// are 0700 (ROOT and its missing parents too), its files 0600: task logs
// and the rendezvous file may hold the program's secret. create() refuses
// a ROOT that another user could change (private_directory.hpp), before it
// writes anything there.
#pragma once

#include <optional>
#include <string>
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
  explicit RunDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// Whether `text` may name something under the run root (a program, a run,
// a node): letters, digits, '_', '-' and '.', starting with a letter or a
// digit, at most 256 bytes; never "..", never a path.
bool is_plain_name(std::string_view text);

// Finds a run directory from what the user typed: a run directory path (a
// directory holding plan.json), a program name (its newest run), or nothing
// (the newest run of any program). Returns nothing when there is none, or
// when `which` is neither a run directory nor a plain name (is_plain_name);
// `error` says where it looked, or what a name may hold.
std::optional<std::string> find_run_directory(const std::string& root, const std::string& which,
                                              std::string* error);

// Reads ROOT/.../rendezvous; nothing when absent, not a regular file
// (run_file.hpp) or malformed.
std::optional<RendezvousContact> read_contact(const std::string& run_directory);

}  // namespace slipway::launch
