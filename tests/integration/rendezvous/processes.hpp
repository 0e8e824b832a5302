// Test helper: real child processes (posix_spawn) with their stdout on a
// pipe, waited for with a bound so that a broken test fails instead of hanging.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace slipway::rendezvous::test {

struct Child {
  pid_t pid = -1;
  int stdout_fd = -1;
};

// stderr_path: where the child's stderr goes (a file, truncated); empty:
// this process's stderr.
Child spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
            const std::string& stderr_path = {});

// SIGKILLs the child (if still running) and reaps it; for test scopes that
// end early. Holds only the pid this test spawned.
class KillOnExit {
 public:
  explicit KillOnExit(Child& child) : child_(child) {}
  ~KillOnExit();
  KillOnExit(const KillOnExit&) = delete;
  KillOnExit& operator=(const KillOnExit&) = delete;

 private:
  Child& child_;
};

// Waits for the child's exit; returns its exit code, 128+signal when killed,
// or -1 after `limit` (the child is then killed).
int wait_exit(Child& child, std::chrono::milliseconds limit);

// Reads one line of the child's stdout (without the newline); empty on EOF
// or after `limit`.
std::string read_line(Child& child, std::chrono::milliseconds limit);

// Everything left on the child's stdout until EOF.
std::string read_rest(Child& child);

}  // namespace slipway::rendezvous::test
