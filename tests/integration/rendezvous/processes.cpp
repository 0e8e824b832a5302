// Child processes for the integration tests (see processes.hpp).
#include "processes.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <thread>

extern char** environ;

namespace slipway::rendezvous::test {

Child spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
            const std::string& stderr_path) {
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], 1);
  if (!stderr_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    if (!env.count(entry.substr(0, entry.find('=')))) env_strings.push_back(entry);
  }
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);
  Child child;
  const int rc = ::posix_spawn(&child.pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipefd[1]);
  if (rc != 0) {
    ::close(pipefd[0]);
    throw std::runtime_error("posix_spawn " + argv[0] + " failed");
  }
  child.stdout_fd = pipefd[0];
  return child;
}

KillOnExit::~KillOnExit() {
  if (child_.pid <= 0) return;
  int status = 0;
  if (::waitpid(child_.pid, &status, WNOHANG) == 0) {
    ::kill(child_.pid, SIGKILL);
    ::waitpid(child_.pid, &status, 0);
  }
  if (child_.stdout_fd >= 0) ::close(child_.stdout_fd);
  child_.stdout_fd = -1;
  child_.pid = -1;
}

int wait_exit(Child& child, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(child.pid, &status, WNOHANG);
    if (r == child.pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child.pid, SIGKILL);
      ::waitpid(child.pid, &status, 0);
      child.pid = -1;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  child.pid = -1;  // reaped: nobody may signal the number again
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

std::string read_line(Child& child, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::string line;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return {};
    pollfd p{child.stdout_fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return {};
    char c;
    if (::read(child.stdout_fd, &c, 1) != 1) return line;
    if (c == '\n') return line;
    line.push_back(c);
  }
}

std::string read_rest(Child& child) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(child.stdout_fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(child.stdout_fd);
  child.stdout_fd = -1;
  return out;
}

}  // namespace slipway::rendezvous::test
