// Child process control for the launch layer: spawn with exec-failure
// reporting, reaping, process groups, subreaper and descendant teardown.
#include "slipway/exec/process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <string_view>
#include <system_error>
#include <thread>

#include "slipway/exec/unique_fd.hpp"

namespace slipway::exec {
namespace {

// Closes every descriptor >= `first` except `keep`. close_range(2) where the
// kernel has it (one call), else a loop up to the descriptor limit (which
// can be a million: that loop used to be most of a task's start-up).
void close_all_from(int first, int keep) {
  unsigned lo = static_cast<unsigned>(first);
  unsigned k = static_cast<unsigned>(keep);
  bool ranged = true;
  if (keep >= first) {
    if (k > lo) ranged = syscall(SYS_close_range, lo, k - 1, 0) == 0;
    lo = k + 1;
  }
  if (ranged && syscall(SYS_close_range, lo, ~0U, 0) == 0) return;
  long max_fd = sysconf(_SC_OPEN_MAX);
  if (max_fd < 0 || max_fd > 65536) max_fd = 65536;
  for (int fd = first; fd < max_fd; ++fd) {
    if (fd != keep) close(fd);
  }
}

// Runs in the child between fork and exec: only async-signal-safe calls.
[[noreturn]] void child_exec(const SpawnOptions& o, char* const* argv, char* const* envp,
                             int report_fd) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  }
  if (o.new_process_group) setpgid(0, 0);
  if (o.parent_death_signal != 0) prctl(PR_SET_PDEATHSIG, o.parent_death_signal);
  auto dup_to = [](int from, int to) {
    if (from >= 0 && from != to) dup2(from, to);
  };
  dup_to(o.stdin_fd, STDIN_FILENO);
  dup_to(o.stdout_fd, STDOUT_FILENO);
  dup_to(o.stderr_fd, STDERR_FILENO);
  close_all_from(3, report_fd);
  int err = 0;
  if (!o.workdir.empty() && chdir(o.workdir.c_str()) != 0) {
    err = errno;
  } else {
    execvpe(argv[0], argv, envp);
    err = errno;
  }
  ssize_t ignored = write(report_fd, &err, sizeof err);
  (void)ignored;
  _exit(127);
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// The parent pid of `pid`, read from /proc/PID/stat; -1 when gone or a
// zombie (a zombie has no children left and needs no signal).
pid_t live_parent_of(pid_t pid) {
  // Plain read(2): the process may vanish while we read (ESRCH), which a
  // stream would turn into an exception.
  std::string path = "/proc/" + std::to_string(pid) + "/stat";
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return -1;
  char buffer[1024];
  ssize_t n = ::read(fd.get(), buffer, sizeof buffer - 1);
  if (n <= 0) return -1;
  std::string_view content(buffer, static_cast<std::size_t>(n));
  auto close_paren = content.rfind(')');
  if (close_paren == std::string_view::npos || close_paren + 4 >= content.size()) return -1;
  char state = content[close_paren + 2];
  long ppid = std::strtol(buffer + close_paren + 4, nullptr, 10);
  return state == 'Z' ? -1 : static_cast<pid_t>(ppid);
}

}  // namespace

pid_t spawn(const SpawnOptions& options) {
  if (options.argv.empty()) {
    throw std::system_error(EINVAL, std::generic_category(), "spawn: empty command");
  }
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "spawn: pipe");
  }
  UniqueFd read_end(pipe_fds[0]);
  UniqueFd write_end(pipe_fds[1]);
  auto argv = c_strings(options.argv);
  auto envp = c_strings(options.env);
  pid_t pid = fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "spawn: fork");
  if (pid == 0) child_exec(options, argv.data(), envp.data(), write_end.get());
  write_end.reset();
  // Also set the group from the parent, so a signal sent right after
  // spawn() returns reaches the group whichever process ran first.
  if (options.new_process_group) setpgid(pid, pid);
  int child_errno = 0;
  ssize_t n;
  do {
    n = read(read_end.get(), &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    int status = 0;
    waitpid(pid, &status, 0);
    std::string what = options.workdir.empty() || child_errno != ENOENT
                           ? "cannot run '" + options.argv[0] + "'"
                           : "cannot run '" + options.argv[0] + "' in '" + options.workdir + "'";
    throw std::system_error(child_errno, std::generic_category(), what);
  }
  return pid;
}

std::string ExitStatus::describe() const {
  if (!signaled) return "exited with status " + std::to_string(code);
  const char* name = strsignal(code);
  return "killed by signal " + std::to_string(code) + " (" + (name ? name : "unknown") + ")";
}

ExitStatus ExitStatus::from_wait_status(int status) {
  if (WIFSIGNALED(status)) return {true, WTERMSIG(status)};
  return {false, WEXITSTATUS(status)};
}

std::optional<std::pair<pid_t, ExitStatus>> try_reap_any() {
  int status = 0;
  pid_t pid = waitpid(-1, &status, WNOHANG);
  if (pid <= 0) return std::nullopt;
  return std::make_pair(pid, ExitStatus::from_wait_status(status));
}

ExitStatus wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return {false, 127};
  }
  return ExitStatus::from_wait_status(status);
}

void signal_group(pid_t pgid, int sig) {
  if (pgid > 1) kill(-pgid, sig);
}

void become_subreaper() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

bool die_with_parent(int sig) {
  pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, sig);
  // The parent may have died before prctl: then we were reparented.
  return getppid() == parent && parent != 1;
}

bool has_children() {
  siginfo_t info{};
  return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0;
}

std::vector<pid_t> descendants_of(pid_t root) {
  std::multimap<pid_t, pid_t> children;  // parent -> child
  if (DIR* proc = opendir("/proc")) {
    while (dirent* entry = readdir(proc)) {
      char* end = nullptr;
      long pid = std::strtol(entry->d_name, &end, 10);
      if (pid <= 0 || *end != '\0') continue;
      pid_t ppid = live_parent_of(static_cast<pid_t>(pid));
      if (ppid > 0) children.emplace(ppid, static_cast<pid_t>(pid));
    }
    closedir(proc);
  }
  std::vector<pid_t> out;
  std::vector<pid_t> frontier{root};
  while (!frontier.empty()) {
    pid_t parent = frontier.back();
    frontier.pop_back();
    auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      out.push_back(it->second);
      frontier.push_back(it->second);
    }
  }
  return out;
}

void terminate_descendants(std::chrono::milliseconds grace) {
  const pid_t self = getpid();
  auto reap_all = [] {
    while (try_reap_any()) {
    }
  };
  // A subreaper with no child has no descendant at all (an orphan is
  // reparented to us before its parent's exit can be reaped), so the
  // common case needs no /proc scan.
  reap_all();
  if (!has_children()) return;
  for (pid_t pid : descendants_of(self)) kill(pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    reap_all();
    if (descendants_of(self).empty()) return reap_all();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (pid_t pid : descendants_of(self)) kill(pid, SIGKILL);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  reap_all();
}

}  // namespace slipway::exec
