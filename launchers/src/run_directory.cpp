// Run directories: creation, the latest links, and the rendezvous contact.
#include "slipway/core/contract.hpp"
#include "slipway/launch/run_directory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "slipway/base/write_all.hpp"
#include "slipway/base/unique_fd.hpp"

namespace slipway::launch {
namespace fs = std::filesystem;

std::string default_run_root() {
  if (const char* root = std::getenv(core::env::kRunRoot); root && *root) return root;
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::string(home) + "/.slipway/runs";
  }
  return "/tmp/slipway-" + std::to_string(getuid()) + "/runs";
}

namespace {

// Creates `path` and its missing parents, each new one with mode 0700
// (existing directories are left as they are). Throws saying what failed.
void create_private_directories(const std::string& path, const std::string& what) {
  std::string prefix;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    std::size_t end = slash == std::string::npos ? path.size() : slash;
    prefix = path.substr(0, end);
    start = end + 1;
    if (prefix.empty() || prefix == "." || prefix == "..") continue;
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
      throw std::runtime_error("cannot create " + what + " '" + path + "': " + prefix + ": " +
                               std::strerror(errno));
    }
    if (slash == std::string::npos) break;
  }
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw std::runtime_error("cannot create " + what + " '" + path + "': it exists and is not a "
                             "directory");
  }
}

}  // namespace

RunDirectory RunDirectory::create(const std::string& root, const std::string& program) {
  create_private_directories(root, "run root");
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  std::string name = program + "-" + stamp + "-" + std::to_string(getpid());
  std::string path = root + "/" + name;
  // Private: the logs may hold the program's secret (a task printing its
  // environment), and the rendezvous file holds it.
  for (const std::string& dir : {path, path + "/logs", core::address_directory(path)}) {
    if (::mkdir(dir.c_str(), 0700) != 0) {
      throw std::runtime_error("cannot create run directory '" + dir + "': " + std::strerror(errno));
    }
  }
  std::error_code ec;
  for (const std::string& link : {root + "/latest", root + "/" + program + ".latest"}) {
    std::string tmp = link + ".tmp" + std::to_string(getpid());
    fs::remove(tmp, ec);
    fs::create_directory_symlink(name, tmp, ec);
    if (!ec) fs::rename(tmp, link, ec);
    if (ec) fs::remove(tmp, ec);
  }
  return RunDirectory(fs::absolute(path).string());
}

void RunDirectory::write_file(const std::string& name, const std::string& content,
                              int mode) const {
  std::string path = path_ + "/" + name;
  std::string tmp = path + ".tmp";
  base::UniqueFd fd(
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode));
  bool written = fd && base::write_all(fd.get(), content);
  int error = errno;
  if (written && ::close(fd.release()) != 0) {  // NFS may report a full disk only here
    written = false;
    error = errno;
  }
  fd.reset();
  if (!written || ::rename(tmp.c_str(), path.c_str()) != 0) {
    if (written) error = errno;
    ::unlink(tmp.c_str());  // no half-written file is left behind
    throw std::runtime_error("cannot write '" + path + "': " + std::strerror(error));
  }
}

void RunDirectory::write_contact(const RendezvousContact& contact) const {
  write_file("rendezvous",
             "endpoint " + contact.endpoint + "\ntoken " + contact.token + "\npid " +
                 std::to_string(contact.launcher_pid) + "\n",
             0600);
}

void RunDirectory::write_exit(int exit_code) const {
  write_file("exit", std::to_string(exit_code) + "\n");
}

std::optional<std::string> find_run_directory(const std::string& root, const std::string& which,
                                              std::string* error) {
  std::error_code ec;
  std::string candidate;
  if (which.empty()) {
    candidate = root + "/latest";
  } else if (fs::is_directory(which, ec) && fs::exists(fs::path(which) / "plan.json", ec)) {
    candidate = which;
  } else {
    candidate = root + "/" + which + ".latest";
  }
  if (fs::is_directory(candidate, ec)) return fs::canonical(candidate, ec).string();
  if (error) {
    *error = which.empty() ? "no run found under " + root
                           : "no run directory or program named '" + which + "' under " + root;
  }
  return std::nullopt;
}

std::optional<RendezvousContact> read_contact(const std::string& run_directory) {
  std::ifstream in(run_directory + "/rendezvous");
  if (!in) return std::nullopt;
  RendezvousContact contact;
  std::string key;
  while (in >> key) {
    if (key == "endpoint") in >> contact.endpoint;
    else if (key == "token") in >> contact.token;
    else if (key == "pid") in >> contact.launcher_pid;
    else return std::nullopt;
  }
  if (contact.endpoint.empty() || contact.token.empty()) return std::nullopt;
  return contact;
}

}  // namespace slipway::launch
