// Listing, judging and pruning the runs under a run root, and finding task
// logs (run_history.hpp). Reads run directories through run_directory.hpp.
#include "slipway/launch/run_history.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "slipway/base/unique_fd.hpp"
#include "slipway/launch/run_counters.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/run_file.hpp"
#include "slipway/launch/run_outcome.hpp"
#include "slipway/rendezvous/endpoint.hpp"

namespace slipway::launch {
namespace fs = std::filesystem;
namespace {

bool all_digits(std::string_view s, std::size_t length) {
  return s.size() == length && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// PROGRAM-YYYYmmdd-HHMMSS-PID, as RunDirectory::create names a run.
bool parse_run_name(const std::string& name, RunRecord& run) {
  const std::size_t pid_dash = name.rfind('-');
  if (pid_dash == std::string::npos || pid_dash < 17) return false;
  const std::string_view pid = std::string_view(name).substr(pid_dash + 1);
  const std::string_view time = std::string_view(name).substr(pid_dash - 6, 6);
  const std::string_view date = std::string_view(name).substr(pid_dash - 15, 8);
  if (pid.empty() || pid.size() > 10 || !all_digits(pid, pid.size()) || !all_digits(time, 6) ||
      !all_digits(date, 8) || name[pid_dash - 7] != '-' || name[pid_dash - 16] != '-') {
    return false;
  }
  run.name = name;
  run.program = name.substr(0, pid_dash - 16);
  run.launcher_pid = std::stol(std::string(pid));
  std::tm tm{};
  tm.tm_year = std::stoi(std::string(date.substr(0, 4))) - 1900;
  tm.tm_mon = std::stoi(std::string(date.substr(4, 2))) - 1;
  tm.tm_mday = std::stoi(std::string(date.substr(6, 2)));
  tm.tm_hour = std::stoi(std::string(time.substr(0, 2)));
  tm.tm_min = std::stoi(std::string(time.substr(2, 2)));
  tm.tm_sec = std::stoi(std::string(time.substr(4, 2)));
  tm.tm_isdst = -1;
  run.started = std::mktime(&tm);
  return !run.program.empty();
}

std::optional<int> read_exit(const std::string& run_directory) {
  const auto text = read_run_file(run_directory + "/exit", 64);
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  int code = 0;
  if (in >> code) return code;
  return std::nullopt;
}

// When process `pid` of this host started (seconds since the epoch).
std::optional<std::time_t> process_start(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return std::nullopt;
  const std::size_t paren = text.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  unsigned long long start_ticks = 0;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) start_ticks = std::stoull(field);
  }
  std::ifstream proc_stat("/proc/stat");
  std::string key;
  long long boot = 0;
  while (proc_stat >> key) {
    if (key == "btime") {
      proc_stat >> boot;
      break;
    }
  }
  const long ticks = sysconf(_SC_CLK_TCK);
  if (boot == 0 || ticks <= 0) return std::nullopt;
  return static_cast<std::time_t>(boot + static_cast<long long>(start_ticks / static_cast<unsigned long long>(ticks)));
}

// The launcher lives on this host: its pid exists and it started no later
// than the run did (a later process has only reused the pid).
bool launcher_alive_here(long pid, std::time_t run_started) {
  if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM)) return false;
  const auto started = process_start(pid);
  return !started || *started <= run_started + 2;
}

// Whether something accepts TCP connections at "host:port" or "[v6]:port"
// within half a second. Connects and closes: nothing is sent.
bool endpoint_answers(const std::string& endpoint) {
  rendezvous::Endpoint parsed;
  try {
    parsed = rendezvous::parse_endpoint(endpoint);
  } catch (const std::invalid_argument&) {
    return false;
  }
  const std::string host = parsed.host, port = std::to_string(parsed.port);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return false;
  bool answers = false;
  for (addrinfo* a = found; a != nullptr && !answers; a = a->ai_next) {
    base::UniqueFd fd(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
    if (!fd) continue;
    if (::connect(fd.get(), a->ai_addr, a->ai_addrlen) == 0) {
      answers = true;
      break;
    }
    if (errno != EINPROGRESS) continue;
    pollfd p{fd.get(), POLLOUT, 0};
    if (::poll(&p, 1, 500) != 1) continue;
    int error = 0;
    socklen_t length = sizeof error;
    answers = ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0;
  }
  ::freeaddrinfo(found);
  return answers;
}

std::time_t newest_change(const std::string& run_directory) {
  std::time_t newest = 0;
  std::error_code ec;
  auto note = [&](const fs::path& p) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0) newest = std::max(newest, st.st_mtime);
  };
  note(run_directory);
  for (fs::recursive_directory_iterator it(run_directory, ec), end; !ec && it != end; it.increment(ec)) {
    note(it->path());
  }
  return newest;
}

// "worker.12" sorts after "worker.2": by node name, then replica number.
bool task_name_less(const std::string& a, const std::string& b) {
  const std::size_t da = a.rfind('.'), db = b.rfind('.');
  const std::string na = a.substr(0, da), nb = b.substr(0, db);
  if (na != nb) return na < nb;
  const std::string ra = a.substr(da + 1), rb = b.substr(db + 1);
  if (ra.size() != rb.size()) return ra.size() < rb.size();
  return ra < rb;
}

bool is_task_name(const std::string& name) {
  const std::size_t dot = name.rfind('.');
  return dot != std::string::npos && dot > 0 && dot + 1 < name.size() &&
         all_digits(std::string_view(name).substr(dot + 1), name.size() - dot - 1);
}

// Points `link` at `target` (a name in the same directory), or removes it.
void repoint(const fs::path& link, const std::optional<std::string>& target) {
  std::error_code ec;
  if (!target) {
    fs::remove(link, ec);
    return;
  }
  const fs::path tmp = link.string() + ".tmp" + std::to_string(::getpid());
  fs::remove(tmp, ec);
  fs::create_directory_symlink(*target, tmp, ec);
  if (!ec) fs::rename(tmp, link, ec);
}

}  // namespace

const char* to_string(RunState state) {
  switch (state) {
    case RunState::running: return "running";
    case RunState::done: return "done";
    case RunState::failed: return "failed";
    case RunState::lost: return "lost";
  }
  return "unknown";
}

namespace {

// Everything but last_change.
RunRecord judge_run(const std::string& run_directory) {
  RunRecord run;
  std::error_code ec;
  run.path = fs::absolute(run_directory, ec).lexically_normal().string();
  if (!run.path.empty() && run.path.back() == '/') run.path.pop_back();
  if (!parse_run_name(fs::path(run.path).filename().string(), run)) {
    run.name = fs::path(run.path).filename().string();
  }
  const auto resume = read_resume(run.path);
  if (resume) run.resumes = resume->resume;
  if (const auto outcome = read_outcome(run.path)) {
    run.exit_code = outcome->exit;
    run.failed = failed_task_of(*outcome);
  } else {
    run.exit_code = read_exit(run.path);
  }
  if (run.exit_code) {
    run.state = *run.exit_code == 0 ? RunState::done : RunState::failed;
    return run;
  }
  const auto contact = read_contact(run.path);
  if (contact && contact->launcher_pid > 0) run.launcher_pid = contact->launcher_pid;
  // A resumed run's launcher started with its resume.
  const std::time_t launched = resume && resume->resume > 0 ? resume->started : run.started;
  if (launcher_alive_here(run.launcher_pid, launched) || (contact && endpoint_answers(contact->endpoint))) {
    run.state = RunState::running;
  } else {
    run.state = RunState::lost;
  }
  return run;
}

}  // namespace

RunRecord read_run(const std::string& run_directory) {
  RunRecord run = judge_run(run_directory);
  // Only the retention rule for lost runs needs it: a walk of every file.
  if (run.state == RunState::lost) run.last_change = newest_change(run.path);
  return run;
}

bool run_has_ended(const std::string& run_directory) {
  return judge_run(run_directory).state != RunState::running;
}

std::vector<RunRecord> list_runs(const std::string& root) {
  std::vector<RunRecord> runs;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_symlink(ec) || !it->is_directory(ec)) continue;
    RunRecord named;
    if (!parse_run_name(it->path().filename().string(), named)) continue;
    runs.push_back(read_run(it->path().string()));
  }
  std::sort(runs.begin(), runs.end(), [](const RunRecord& a, const RunRecord& b) {
    return a.started != b.started ? a.started < b.started : a.name < b.name;
  });
  return runs;
}

std::vector<RunRecord> runs_to_prune(const std::vector<RunRecord>& runs, const RetentionRule& rule,
                                     std::time_t now) {
  std::map<std::string, std::size_t> newer;  // per program: runs seen so far, newest first
  std::vector<RunRecord> out;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    const RunRecord& run = *it;
    const std::size_t rank = newer[run.program]++;
    if (run.state == RunState::running) continue;
    const bool beyond_keep = rank >= rule.keep_per_program;
    const bool too_old = now - run.started > rule.max_age.count();
    const bool recently_changed = now - run.last_change <= rule.max_age.count();
    if (run.state == RunState::lost && recently_changed) continue;
    if (beyond_keep || too_old) out.push_back(run);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

bool remove_run(const std::string& root, const RunRecord& run, std::string* error) {
  const RunRecord now = read_run(run.path);  // judged again: it may have started meanwhile
  if (now.state == RunState::running) {
    if (error) *error = run.path + " is running; stop it first (slipway stop " + run.path + ")";
    return false;
  }
  std::error_code ec;
  fs::remove_all(run.path, ec);
  if (ec) {
    if (error) *error = "cannot remove " + run.path + ": " + ec.message();
    return false;
  }
  std::optional<std::string> newest, newest_of_program;
  for (const RunRecord& left : list_runs(root)) {
    newest = left.name;
    if (left.program == run.program) newest_of_program = left.name;
  }
  const fs::path base(root);
  for (const auto& [link, target] : {std::pair{base / "latest", newest},
                                     std::pair{base / (run.program + ".latest"), newest_of_program}}) {
    std::error_code link_ec;
    const bool is_link = fs::is_symlink(fs::symlink_status(link, link_ec));
    if (!is_link || fs::exists(link, link_ec)) continue;  // not a link, or still points at a run
    repoint(link, target);
  }
  return true;
}

std::vector<std::string> task_log_names(const std::string& run_directory) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(run_directory + "/logs", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (file.size() <= 4 || file.substr(file.size() - 4) != ".log") continue;
    const std::string task = file.substr(0, file.size() - 4);
    if (is_task_name(task) && it->is_regular_file(ec)) names.push_back(task);
  }
  std::sort(names.begin(), names.end(), task_name_less);
  return names;
}

std::string task_log_path(const std::string& run_directory, const std::string& task) {
  return run_directory + "/logs/" + task + ".log";
}

}  // namespace slipway::launch
