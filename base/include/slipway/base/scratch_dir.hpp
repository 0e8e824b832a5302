// ScratchDir: a private directory of one task agent (the PMIx server's, and
// Open MPI's session and shared-memory directories of an MPI node), which
// never outlives the agent for long.
//
// Contract:
// - ScratchDir(base, prefix, purpose) creates BASE/PREFIX-XXXXXX (mode
//   0700) holding a lock file, .slipway-owner, that this process keeps
//   locked (flock) for the directory's life; the destructor removes the
//   directory with everything in it. Throws std::runtime_error saying what
//   it was for and what to do.
// - remove_stale_scratch_dirs() removes, under the scratch bases (TMPDIR or
//   /tmp, and /dev/shm), every directory named slipway-* of this user whose
//   owner lock nobody holds: what an agent that was killed (SIGKILL, the
//   OOM killer) left. A live agent's directory is locked and never touched;
//   one without a lock file is not slipway's to judge and is left alone.
//   Agents call it before making their first ScratchDir, and `slipway run`
//   at the start of a program with MPI nodes.
#pragma once

#include <string>

#include "slipway/base/unique_fd.hpp"

namespace slipway::base {

// $TMPDIR, or /tmp.
std::string scratch_temp_base();
// /dev/shm when it is writable (shared memory belongs on tmpfs), else
// scratch_temp_base().
std::string scratch_shm_base();

class ScratchDir {
 public:
  ScratchDir(const std::string& base, const std::string& prefix, const std::string& purpose);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  UniqueFd lock_;
};

void remove_stale_scratch_dirs();

}  // namespace slipway::base
