// Child process control for the launch layer: spawn (clone with a shared
// address space, as posix_spawn) with exec-failure reporting, reaping, process groups, subreaper and descendant teardown.
#include "slipway/base/process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string_view>
#include <system_error>
#include <thread>

#include "slipway/base/unique_fd.hpp"

namespace slipway::base {

void close_descriptors_from(int first, int keep) {
  // close_range(2) where the kernel has it (one call), else a loop up to the
  // descriptor limit, which can be a million (that loop once was most of a
  // task's start-up).
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

namespace {

// The soft RLIMIT_NOFILE before raise_descriptor_limit(), for children
// (-1: never raised).
std::atomic<long long> original_nofile_soft{-1};
// The soft RLIMIT_CORE before disable_core_dumps(), for children (only
// when core_lowered is set).
std::atomic<rlim_t> original_core_soft{0};
std::atomic<bool> core_lowered{false};

// What the child of spawn() reads and writes: it shares our memory
// (CLONE_VM) until it execs, so an exec failure comes back in `error`.
struct ChildArgs {
  const SpawnOptions* options;
  char* const* argv;
  char* const* envp;
  pid_t parent;           // the process calling spawn()
  const char* lifeline;   // "/proc/self/fd/N": the lifeline pipe's read end, or null
  int error;
  bool in_chdir;  // the error came from entering the workdir
};

// This process's lifeline pipe (SpawnOptions::group_dies_with_parent):
// made once, both ends kept open (close-on-exec) for the process's life;
// the path by which a child opens the read end anew, or null.
const char* lifeline_path() {
  static const std::string path = [] {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return std::string();
    return "/proc/self/fd/" + std::to_string(fds[0]);
  }();
  return path.empty() ? nullptr : path.c_str();
}

// In the child: its own description of the lifeline pipe's read end at
// fd 3, which SIGKILLs its process group once no writer is left.
void hold_lifeline(const char* lifeline) {
  const int fd = open(lifeline, O_RDONLY | O_NONBLOCK);  // not close-on-exec
  if (fd < 0) return;
  fcntl(fd, F_SETOWN, -getpid());
  fcntl(fd, F_SETSIG, SIGKILL);
  fcntl(fd, F_SETFL, O_NONBLOCK | O_ASYNC);
  if (fd != 3) {
    dup2(fd, 3);
    close(fd);
  }
}

// Runs in the child between clone and exec, on its own stack in our memory:
// only async-signal-safe calls, no allocation, nothing written but `error`.
int child_exec(void* raw) {
  auto* args = static_cast<ChildArgs*>(raw);
  const SpawnOptions& o = *args->options;
  // Every signal is blocked (the parent did that before clone): reset the
  // dispositions first, then unblock, so no handler of ours runs here.
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  }
  sigset_t kept;
  sigemptyset(&kept);
  for (int sig : o.blocked_signals) sigaddset(&kept, sig);
  sigprocmask(SIG_SETMASK, &kept, nullptr);
  if (o.new_process_group) setpgid(0, 0);
  if (o.parent_death_signal != 0) {
    prctl(PR_SET_PDEATHSIG, o.parent_death_signal);
    // The parent may have died before prctl: we were reparented then.
    if (getppid() != args->parent) _exit(128 + o.parent_death_signal);
  }
  if (long long soft = original_nofile_soft.load(std::memory_order_relaxed); soft >= 0) {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
      limit.rlim_cur = static_cast<rlim_t>(soft);
      setrlimit(RLIMIT_NOFILE, &limit);
    }
  }
  if (core_lowered.load(std::memory_order_acquire)) {
    rlimit limit{};
    if (getrlimit(RLIMIT_CORE, &limit) == 0) {
      limit.rlim_cur = original_core_soft.load(std::memory_order_relaxed);
      setrlimit(RLIMIT_CORE, &limit);
    }
  }
  auto dup_to = [](int from, int to) {
    if (from >= 0 && from != to) dup2(from, to);
  };
  dup_to(o.stdin_fd, STDIN_FILENO);
  dup_to(o.stdout_fd, STDOUT_FILENO);
  dup_to(o.stderr_fd, STDERR_FILENO);
  if (args->lifeline != nullptr) {
    hold_lifeline(args->lifeline);
    close_descriptors_from(4);
  } else {
    close_descriptors_from(3);
  }
  if (!o.workdir.empty() && chdir(o.workdir.c_str()) != 0) {
    args->error = errno;
    args->in_chdir = true;
  } else {
    execvpe(args->argv[0], args->argv, args->envp);
    args->error = errno;
  }
  _exit(127);
}

// The child's stack: mapped once per thread and reused (a spawn returns only
// after its child has exec'd or exited, so one thread never needs two at a
// time); mapping one per spawn cost page faults and a TLB flush each.
class ChildStack {
 public:
  static constexpr std::size_t kSize = 256 * 1024;  // execvpe builds paths on it
  ChildStack() {
    base_ = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                 -1, 0);
    if (base_ == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "spawn: mmap");
  }
  ~ChildStack() { munmap(base_, kSize); }
  ChildStack(const ChildStack&) = delete;
  ChildStack& operator=(const ChildStack&) = delete;
  void* top() const { return static_cast<char*>(base_) + kSize; }

 private:
  void* base_;
};

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

// Why exec said "Argument list too long": the variable over Linux's bound
// for one string, else the total against this system's limit, naming the
// largest variable (the usual culprit: an address list).
std::string too_long_detail(const SpawnOptions& options) {
  constexpr std::size_t kMaxOneString = 32 * 4096;  // MAX_ARG_STRLEN
  std::size_t total = 0;
  const std::string* largest = nullptr;
  for (const auto& a : options.argv) total += a.size() + 1 + sizeof(char*);
  for (const auto& e : options.env) {
    total += e.size() + 1 + sizeof(char*);
    if (largest == nullptr || e.size() > largest->size()) largest = &e;
  }
  const std::string name = largest ? largest->substr(0, std::min<std::size_t>(largest->find('='), 128)) : "";
  if (largest != nullptr && largest->size() + 1 > kMaxOneString) {
    return " (variable " + name + " is " + std::to_string(largest->size() + 1) + " bytes, over Linux's " +
           std::to_string(kMaxOneString) + " bytes for one variable)";
  }
  return " (arguments and environment take " + std::to_string(total) + " bytes, over this system's limit of " +
         std::to_string(sysconf(_SC_ARG_MAX)) + " (ulimit -s / 4); the largest variable is " + name + ", " +
         std::to_string(largest ? largest->size() + 1 : 0) + " bytes)";
}

// Whether `command`, as execvpe would find it (through PATH when it has
// no '/'; relative to `workdir`), is a directory: exec says only EACCES.
bool names_directory(const std::string& command, const std::string& workdir) {
  auto is_directory = [&workdir](const std::string& path) {
    std::string full = path.front() == '/' || workdir.empty() ? path : workdir + "/" + path;
    struct stat st{};
    return ::stat(full.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  };
  if (command.empty()) return false;
  if (command.find('/') != std::string::npos) return is_directory(command);
  const char* path_env = std::getenv("PATH");
  std::string_view path = path_env ? path_env : "/bin:/usr/bin";
  while (true) {
    auto colon = path.find(':');
    std::string dir(path.substr(0, colon));
    if (is_directory((dir.empty() ? "." : dir) + "/" + command)) return true;
    if (colon == std::string_view::npos) return false;
    path.remove_prefix(colon + 1);
  }
}

}  // namespace

pid_t spawn(const SpawnOptions& options) {
  if (options.argv.empty()) {
    throw std::system_error(EINVAL, std::generic_category(), "spawn: empty command");
  }
  auto argv = c_strings(options.argv);
  auto envp = c_strings(options.env);
  const char* lifeline = options.group_dies_with_parent && options.new_process_group ? lifeline_path() : nullptr;
  ChildArgs args{&options, argv.data(), envp.data(), getpid(), lifeline, 0, false};
  thread_local ChildStack stack;
  // As posix_spawn does: the child shares our memory and we wait (VFORK)
  // until it has exec'd, so no page table is copied however large this
  // process is. All signals stay blocked across the clone.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = clone(child_exec, stack.top(), CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
  int clone_errno = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) throw std::system_error(clone_errno, std::generic_category(), "spawn: clone");
  if (args.error != 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (args.in_chdir) {
      throw std::system_error(args.error, std::generic_category(),
                              "cannot enter the workdir '" + options.workdir + "'");
    }
    const std::string& command = options.argv[0];
    int error = args.error;
    if (error == EACCES && names_directory(command, options.workdir)) error = EISDIR;
    std::string what = options.workdir.empty() || error != ENOENT
                           ? "cannot run '" + command + "'"
                           : "cannot run '" + command + "' in '" + options.workdir + "'";
    if (error == E2BIG) what += too_long_detail(options);
    throw std::system_error(error, std::generic_category(), what);
  }
  // Also set the group from here, so a signal sent right after spawn()
  // returns reaches the group (the child set it already: VFORK).
  if (options.new_process_group) setpgid(pid, pid);
  return pid;
}

void raise_descriptor_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  rlim_t wanted = std::min<rlim_t>(limit.rlim_max, rlim_t{1} << 20);
  if (limit.rlim_cur >= wanted) return;
  long long before = static_cast<long long>(limit.rlim_cur);
  limit.rlim_cur = wanted;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  long long unset = -1;
  original_nofile_soft.compare_exchange_strong(unset, before);
}

void disable_core_dumps() {
  prctl(PR_SET_DUMPABLE, 0);
  rlimit limit{};
  if (getrlimit(RLIMIT_CORE, &limit) != 0 || limit.rlim_cur == 0 || core_lowered.load()) return;
  const rlim_t before = limit.rlim_cur;
  limit.rlim_cur = 0;
  if (setrlimit(RLIMIT_CORE, &limit) != 0) return;
  original_core_soft.store(before, std::memory_order_relaxed);
  core_lowered.store(true, std::memory_order_release);
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

}  // namespace slipway::base
