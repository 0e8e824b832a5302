// Run directories: creation, the latest links, and the rendezvous contact.
#include "slipway/core/contract.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/private_directory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "slipway/base/write_all.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/launch/run_file.hpp"

namespace slipway::launch {
namespace fs = std::filesystem;

// The rendezvous file: an endpoint, a token and a pid, far below this.
constexpr std::size_t kMaxContactFile = 4096;

std::string default_run_root() {
  if (const char* root = std::getenv(core::env::kRunRoot); root && *root) return root;
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::string(home) + "/.slipway/runs";
  }
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/slipway-" + std::to_string(getuid()) + "/runs";
}

RunDirectory RunDirectory::create(const std::string& root, const std::string& program) {
  try {
    make_private_directory(root, "run root");
  } catch (const DirectoryRefused& e) {
    throw DirectoryRefused(std::string(e.what()) + " (--run-root DIR, or SLIPWAY_RUN_ROOT)");
  }
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  std::string name = program + "-" + stamp + "-" + std::to_string(getpid());
  std::string path = root + "/" + name;
  // Private: the logs may hold the program's secret (a task printing its
  // environment), and the rendezvous file holds it.
  make_private_subdirectory(root, name);
  make_private_subdirectory(path, "logs");
  const std::string addresses = core::address_directory(path);
  make_private_subdirectory(path, addresses.substr(addresses.rfind('/') + 1));
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
  // A new file, never one that is there (nor where a link there points):
  // what is at the temporary name is removed first.
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW;
  base::UniqueFd fd(::open(tmp.c_str(), kFlags, mode));
  if (!fd && errno == EEXIST && ::unlink(tmp.c_str()) == 0) fd.reset(::open(tmp.c_str(), kFlags, mode));
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

bool is_plain_name(std::string_view text) {
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  return !text.empty() && text.size() <= 256 && alnum(text.front()) &&
         std::all_of(text.begin(), text.end(),
                     [&alnum](char c) { return alnum(c) || c == '_' || c == '-' || c == '.'; });
}

std::optional<std::string> find_run_directory(const std::string& root, const std::string& which,
                                              std::string* error) {
  std::error_code ec;
  std::string candidate;
  if (which.empty()) {
    candidate = root + "/latest";
  } else if (fs::is_directory(which, ec) && fs::exists(fs::path(which) / "plan.json", ec)) {
    candidate = which;
  } else if (is_plain_name(which)) {
    candidate = root + "/" + which + ".latest";
  } else {
    if (error) {
      *error = "'" + which + "' is neither a run directory (one holding plan.json) nor a program's "
               "or run's name (letters, digits, '_', '-' and '.', starting with a letter or digit)";
    }
    return std::nullopt;
  }
  if (fs::is_directory(candidate, ec)) return fs::canonical(candidate, ec).string();
  if (error) {
    *error = which.empty() ? "no run found under " + root
                           : "no run directory or program named '" + which + "' under " + root;
  }
  return std::nullopt;
}

std::optional<RendezvousContact> read_contact(const std::string& run_directory) {
  const auto text = read_run_file(run_directory + "/rendezvous", kMaxContactFile);
  if (!text) return std::nullopt;
  std::istringstream in(*text);
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
