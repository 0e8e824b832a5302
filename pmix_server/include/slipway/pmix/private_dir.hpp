// PrivateDir: the PMIx server's temporary directory and Open MPI's session
// and shared-memory directories of one agent: locked scratch directories
// (slipway/base/scratch_dir.hpp), removed when the agent ends and, when it
// was killed, by the host's next agent.
#pragma once

#include <string>

#include "slipway/base/scratch_dir.hpp"

namespace slipway::pmix::detail {

// $TMPDIR, or /tmp.
inline std::string temp_base() { return base::scratch_temp_base(); }

// Sweeps what killed agents left (once per process), then makes the
// directory.
class PrivateDir : public base::ScratchDir {
 public:
  PrivateDir(const std::string& parent, const std::string& prefix, const std::string& purpose)
      : base::ScratchDir((swept(), parent), prefix, purpose) {}

 private:
  static void swept() {
    static const bool once = (base::remove_stale_scratch_dirs(), true);
    (void)once;
  }
};

}  // namespace slipway::pmix::detail
