// PrivateDir: a fresh directory (mkdtemp) removed with everything in it on
// destruction: the PMIx server's temporary directory, Open MPI's session
// and shared-memory directories of one agent.
#pragma once

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace slipway::pmix::detail {

// $TMPDIR, or /tmp.
inline std::string temp_base() {
  const char* env = std::getenv("TMPDIR");
  return (env && *env) ? env : "/tmp";
}

class PrivateDir {
 public:
  // Creates BASE/PREFIX-XXXXXX; throws std::runtime_error saying what it
  // was for and what to do.
  PrivateDir(const std::string& base, const std::string& prefix, const std::string& purpose) {
    std::string pattern = base + "/" + prefix + "-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()) == nullptr) {
      throw std::runtime_error("cannot create " + purpose + " under " + base + ": " +
                               std::strerror(errno) + " (set TMPDIR to a writable directory)");
    }
    path_ = buffer.data();
  }
  ~PrivateDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace slipway::pmix::detail
