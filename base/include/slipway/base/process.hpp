// Starting, signalling and reaping child processes for the launch layer.
//
// Contract:
// - spawn() starts a child sharing this process's memory until it execs
//   (clone(CLONE_VM | CLONE_VFORK), as posix_spawn does: no page table is
//   copied, the calling thread waits until the exec) and execs argv[0] (searched in PATH when it has no '/')
//   with exactly `env`, in `workdir` when set. The child is put in its own
//   process group when `new_process_group` is set, asks the kernel for
//   `parent_death_signal` when its parent thread dies (0: none), has every
//   signal unblocked and default dispositions, and gets the given stdin /
//   stdout / stderr fds (-1 keeps the parent's). Every other fd is closed in
//   the child. A failure to exec is reported by spawn() as an exception
//   carrying errno's text, never as a child that exits 127 silently: "cannot
//   enter the workdir 'W': REASON" when the workdir is the problem, "cannot
//   run 'C': Is a directory" for a command that is a directory. A child
//   whose parent died before it asked for its parent death signal exits
//   (128 + the signal) instead of running without one.
// - Must be called from a thread that lives as long as the child when a
//   parent death signal is asked for (the kernel ties it to the thread).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace slipway::base {

struct SpawnOptions {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // "NAME=value" entries, the child's whole environment
  std::string workdir;           // empty: inherit
  bool new_process_group = true;
  int parent_death_signal = 0;
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  // The kernel SIGKILLs the child's process group (new_process_group) when
  // this process ends, however it ends (SIGKILL included), as long as a
  // process of the group still holds the child's fd 3: a pipe's read end,
  // opened for the child alone (its own open file description, O_ASYNC,
  // owned by the group, signal SIGKILL) from this process's lifeline pipe,
  // whose only writer is this process (SIGIO on the last writer's close).
  // The child's own children in its group go with it, which a parent death
  // signal (the child alone) does not reach.
  bool group_dies_with_parent = false;
  // Signals that stay blocked in the new program (every other one starts
  // unblocked, with its default disposition): for a child that takes them
  // through a signalfd from its first instruction (slipway-exec), so that
  // one sent right after the spawn is never lost nor fatal.
  std::vector<int> blocked_signals;
};

// Starts the process; returns its pid. Throws std::system_error on failure
// (clone failure, or the child's chdir/exec failure).
pid_t spawn(const SpawnOptions& options);

// How a child ended, as waitpid reports it.
struct ExitStatus {
  bool signaled = false;
  int code = 0;  // exit code, or the signal number when signaled

  // Shell convention: the exit code, or 128 + signal.
  int shell_code() const { return signaled ? 128 + code : code; }
  bool success() const { return !signaled && code == 0; }
  // "exited with status 3" / "killed by signal 9 (Killed)".
  std::string describe() const;
  static ExitStatus from_wait_status(int status);
};

// Raises this process's soft limit on open descriptors to its hard limit
// (at most 2^20): a launcher holding two pipes per running task would run
// out at the common soft limit of 1024. Children started by spawn() from
// then on get the soft limit this process had before, so the commands see
// the limits they would have seen anyway.
void raise_descriptor_limit();

// For a process holding the program's secret (the launcher, the agent): no
// core dump of it may hold the secret, and no other process of the user
// may read its memory. Marks it not dumpable (PR_SET_DUMPABLE 0: no core
// dump, no ptrace attach or /proc/PID/mem by the same user) and lowers its
// soft RLIMIT_CORE to 0. Children started by spawn() from then on get the
// core limit this process had before (and exec makes them dumpable again).
void disable_core_dumps();

// Non-blocking reap of any child: the pid and its status, or nothing.
std::optional<std::pair<pid_t, ExitStatus>> try_reap_any();

// Blocking wait for one specific child.
ExitStatus wait_for(pid_t pid);

// Sends `sig` to the process group `pgid` (ignores ESRCH).
void signal_group(pid_t pgid, int sig);

// Makes this process a child subreaper: orphaned descendants are
// reparented to it instead of init, so teardown can find them.
void become_subreaper();

// Asks for `sig` when the parent dies; returns false when the parent is
// already gone (the caller should then stop).
bool die_with_parent(int sig);

// Closes every descriptor >= `first` except `keep` (-1: none kept).
// Async-signal-safe: usable between fork and exec.
void close_descriptors_from(int first, int keep = -1);

// Whether this process has any child, running or not yet reaped.
bool has_children();

// Every live descendant of `root` (children, their children, ...), found
// through /proc. Used with become_subreaper() to leave no orphan behind.
std::vector<pid_t> descendants_of(pid_t root);

// Terminates every descendant of this process: SIGTERM to each, then
// SIGKILL to whatever is left after `grace`; reaps what it can. Cheap when
// this process (a subreaper) has no child left: no /proc scan then.
void terminate_descendants(std::chrono::milliseconds grace);

}  // namespace slipway::base
