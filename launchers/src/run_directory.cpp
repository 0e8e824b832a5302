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

#include "slipway/base/replace_file.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/base/write_all.hpp"
#include "slipway/launch/run_counters.hpp"
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

namespace {

void make_run_root(const std::string& root) {
  try {
    make_private_directory(root, "run root");
  } catch (const DirectoryRefused& e) {
    throw DirectoryRefused(std::string(e.what()) + " (--run-root DIR, or SLIPWAY_RUN_ROOT)");
  }
}

// Points the symbolic link LINK at TARGET (a name in the same directory),
// replacing what is there atomically; quietly nothing when it cannot.
void point_link(const std::string& link, const std::string& target) {
  std::error_code ec;
  std::string tmp = link + ".tmp" + std::to_string(getpid());
  fs::remove(tmp, ec);
  fs::create_directory_symlink(target, tmp, ec);
  if (!ec) fs::rename(tmp, link, ec);
  if (ec) fs::remove(tmp, ec);
}

void point_latest(const std::string& root, const std::string& program, const std::string& name) {
  for (const std::string& link : {root + "/latest", root + "/" + program + ".latest"}) point_link(link, name);
}

// PARENT/NAME as a private directory of ours: kept when it is one already
// (not a link), made otherwise.
void keep_or_make_subdirectory(const std::string& parent, const std::string& name) {
  struct stat st{};
  const std::string path = parent + "/" + name;
  if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid()) return;
  make_private_subdirectory(parent, name);
}

// Appends `line` to every task log (a regular file, never through a link).
void append_to_logs(const std::string& logs, const std::string& line) {
  std::error_code ec;
  for (fs::directory_iterator it(logs, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".log") continue;
    base::UniqueFd fd(::open(it->path().c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st{};
    if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    base::write_all(fd.get(), line);
  }
}

}  // namespace

RunDirectory RunDirectory::resume(const std::string& path, const std::string& program) {
  struct stat st{};
  if (::lstat((path + "/plan.json").c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    throw std::runtime_error("'" + path + "' is no run directory (it holds no plan.json)");
  }
  const std::string absolute = fs::absolute(path).lexically_normal().string();
  const auto before = read_resume(absolute);
  const std::uint32_t resume = before ? before->resume + 1 : 1;
  RunDirectory run(absolute, resume);
  run.write_file("resume", format_resume({resume, std::time(nullptr)}));
  ::unlink((absolute + "/outcome.json").c_str());  // running again
  ::unlink((absolute + "/exit").c_str());  // running again
  keep_or_make_subdirectory(absolute, "logs");
  // The notices of the start before are no notices of this one (whose
  // notices count from 1 again): gone before any task starts.
  std::error_code ec;
  for (fs::directory_iterator it(absolute + "/notice", ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ignored;
    if (it->is_regular_file(ignored) || it->is_symlink(ignored)) fs::remove(it->path(), ignored);
  }
  const std::string addresses = core::address_directory(absolute);
  keep_or_make_subdirectory(absolute, addresses.substr(addresses.rfind('/') + 1));
  const std::string name = fs::path(absolute).filename().string();
  append_to_logs(run.logs_path(), "----- slipway: resume " + std::to_string(resume) + " of run " + name + " -----\n");
  point_latest(fs::path(absolute).parent_path().string(), program, name);
  return run;
}

RunDirectory RunDirectory::for_job(const std::string& root, const std::string& program,
                                   const std::string& job_key) {
  if (!is_plain_name(job_key)) throw std::runtime_error("'" + job_key + "' is no Slurm job id");
  make_run_root(root);
  const std::string link = root + "/" + program + ".job-" + job_key;
  std::error_code ec;
  if (fs::is_directory(link, ec)) return resume(fs::canonical(link, ec).string(), program);
  RunDirectory run = create(root, program);
  point_link(link, fs::path(run.path()).filename().string());
  return run;
}

void RunDirectory::make_task_directories(const std::vector<std::string>& nodes) const {
  keep_or_make_subdirectory(path_, "state");
  for (const std::string& node : nodes) keep_or_make_subdirectory(path_ + "/state", node);
  keep_or_make_subdirectory(path_, "notice");
}

RunDirectory RunDirectory::create(const std::string& root, const std::string& program) {
  make_run_root(root);
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
  point_latest(root, program, name);
  RunDirectory run(fs::absolute(path).string(), 0);
  run.write_file("resume", format_resume({0, now}));
  return run;
}

void RunDirectory::write_file(const std::string& name, const std::string& content,
                              int mode) const {
  if (std::string error = base::replace_file(path_ + "/" + name, content, mode); !error.empty()) {
    throw std::runtime_error(error);
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
    // A run's name (from `slipway runs`), else a program's: its newest run.
    const bool run_name = fs::is_directory(root + "/" + which, ec) && fs::exists(root + "/" + which + "/plan.json", ec);
    candidate = root + "/" + which + (run_name ? "" : ".latest");
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
