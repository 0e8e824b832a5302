// submit_batch_script: sbatch with the script piped to its stdin.
#include "slipway/core/contract.hpp"
#include "slipway/jobscripts/submit.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "slipway/base/process.hpp"
#include "slipway/base/unique_fd.hpp"

extern char** environ;

namespace slipway::jobscripts {
namespace {

std::vector<std::string> environment_for_sbatch() {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (!entry.starts_with(std::string(core::env::kSpankReexec) + "=")) {
      env.emplace_back(entry);
    }
  }
  return env;
}

// Ignores SIGPIPE while alive (sbatch may exit before reading everything:
// its status then tells what happened).
class IgnoreSigpipe {
 public:
  IgnoreSigpipe() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &saved_);
  }
  IgnoreSigpipe(const IgnoreSigpipe&) = delete;
  IgnoreSigpipe& operator=(const IgnoreSigpipe&) = delete;
  ~IgnoreSigpipe() { sigaction(SIGPIPE, &saved_, nullptr); }

 private:
  struct sigaction saved_ {};
};

void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return;  // sbatch stopped reading; its exit status reports why
    }
    done += static_cast<std::size_t>(n);
  }
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

  {
    IgnoreSigpipe guard;
    write_all(write_end.get(), script);
    write_end.reset();
  }
  return base::wait_for(pid).shell_code();
}

}  // namespace slipway::jobscripts
