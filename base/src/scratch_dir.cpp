// Scratch directories of task agents, locked by their owner and swept when
// the owner is gone (see scratch_dir.hpp).
#include "slipway/base/scratch_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace slipway::base {
namespace {

constexpr const char* kOwnerFile = ".slipway-owner";

// Removes the slipway-* directories under `base` whose owner lock is free.
void sweep(const std::string& base) {
  DIR* dir = ::opendir(base.c_str());
  if (!dir) return;
  std::vector<std::string> stale;
  const uid_t self = ::geteuid();
  while (dirent* entry = ::readdir(dir)) {
    if (std::strncmp(entry->d_name, "slipway-", 8) != 0) continue;
    std::string path = base + "/" + entry->d_name;
    struct stat st{};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != self) continue;
    std::string owner = path + "/" + kOwnerFile;
    UniqueFd lock(::open(owner.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!lock) continue;  // no lock file: not one of ours to judge
    if (::flock(lock.get(), LOCK_EX | LOCK_NB) == 0) stale.push_back(path);
  }
  ::closedir(dir);
  for (const auto& path : stale) {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
}

}  // namespace

std::string scratch_temp_base() {
  const char* env = std::getenv("TMPDIR");
  return (env && *env) ? env : "/tmp";
}

std::string scratch_shm_base() {
  return ::access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : scratch_temp_base();
}

void remove_stale_scratch_dirs() {
  std::string temp = scratch_temp_base();
  std::string shm = scratch_shm_base();
  sweep(temp);
  if (shm != temp) sweep(shm);
}

ScratchDir::ScratchDir(const std::string& base, const std::string& prefix,
                       const std::string& purpose) {
  std::string pattern = base + "/" + prefix + "-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) {
    throw std::runtime_error("cannot create " + purpose + " under " + base + ": " +
                             std::strerror(errno) + " (set TMPDIR to a writable directory)");
  }
  path_ = buffer.data();
  // Locked before it gets its name: a sweeper never finds it unlocked.
  std::string fresh = path_ + "/" + kOwnerFile + ".new";
  lock_.reset(::open(fresh.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock_ || ::flock(lock_.get(), LOCK_EX) != 0 ||
      ::rename(fresh.c_str(), (path_ + "/" + kOwnerFile).c_str()) != 0) {
    int error = errno;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
    throw std::runtime_error("cannot lock " + purpose + " " + path_ + ": " + std::strerror(error));
  }
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace slipway::base
