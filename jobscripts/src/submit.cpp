// submit_batch_script: sbatch with the script piped to its stdin.
#include "slipway/core/contract.hpp"
#include "slipway/jobscripts/submit.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "slipway/base/environment.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/base/write_all.hpp"

namespace slipway::jobscripts {
namespace {

// This environment without the SPANK plugin's re-exec marker.
std::vector<std::string> environment_for_sbatch() {
  const std::string marker = std::string(core::env::kSpankReexec) + "=";
  return base::environment_without([&](std::string_view entry) { return entry.starts_with(marker); });
}

}  // namespace

int submit_batch_script(const std::string& script, const std::vector<std::string>& args,
                        const std::string& sbatch_path) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "pipe for sbatch");
  }
  base::UniqueFd read_end(fds[0]);
  base::UniqueFd write_end(fds[1]);

  base::SpawnOptions spawn;
  spawn.argv.push_back(sbatch_path);
  spawn.argv.insert(spawn.argv.end(), args.begin(), args.end());
  spawn.env = environment_for_sbatch();
  spawn.new_process_group = false;  // Ctrl-C reaches `sbatch --wait` too
  spawn.stdin_fd = read_end.get();
  const pid_t pid = base::spawn(spawn);
  read_end.reset();

  // sbatch may exit before reading everything: its status then tells what
  // happened (EPIPE here, never SIGPIPE).
  base::write_all_to_pipe(write_end.get(), script);
  write_end.reset();
  return base::wait_for(pid).shell_code();
}

}  // namespace slipway::jobscripts
