// Bounded reads of /proc for the usage of a task's process tree (see
// proc_files.hpp).
#include "slipway/exec/proc_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "slipway/base/unique_fd.hpp"

namespace slipway::exec {

namespace {

// At most `max_bytes` of `path`; nothing when it cannot be opened or read.
std::optional<std::string> read_at_most(const std::string& path, std::size_t max_bytes) {
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (fd.get() < 0) return std::nullopt;
  std::string text(max_bytes, '\0');
  std::size_t used = 0;
  while (used < max_bytes) {
    const ssize_t n = ::read(fd.get(), text.data() + used, max_bytes - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  text.resize(used);
  return text;
}

}  // namespace

std::optional<std::string> ProcFiles::stat(pid_t pid) {
  return read_at_most(root_ + "/" + std::to_string(pid) + "/stat", kMaxStatBytes);
}

std::vector<pid_t> ProcFiles::threads(pid_t pid, std::size_t limit) {
  std::vector<pid_t> tids;
  const std::string path = root_ + "/" + std::to_string(pid) + "/task";
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(path.c_str()), ::closedir);
  if (!dir) return tids;
  while (tids.size() < limit) {
    const dirent* entry = ::readdir(dir.get());
    if (entry == nullptr) break;
    const auto listed = parse_pid_list(entry->d_name, 1);  // "." and ".." are no pids
    if (!listed.empty()) tids.push_back(listed.front());
  }
  return tids;
}

std::optional<std::string> ProcFiles::children(pid_t pid, pid_t tid) {
  return read_at_most(root_ + "/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/children",
                      kMaxChildrenBytes);
}

}  // namespace slipway::exec
