// Process control against real processes: exec failures are reported,
// exit statuses described, descendants found and terminated, a group
// killed with the process that spawned it.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <system_error>
#include <thread>

#include "slipway/base/process.hpp"

using namespace slipway;
using namespace std::chrono_literals;

namespace {
std::vector<std::string> base_env() { return {"PATH=/usr/bin:/bin"}; }
}  // namespace

TEST_CASE("spawn runs a command with exactly the given environment") {
  base::SpawnOptions o;
  o.argv = {"sh", "-c", "test \"$ONLY\" = yes && test -z \"$HOME\""};
  o.env = base_env();
  o.env.push_back("ONLY=yes");
  pid_t pid = base::spawn(o);
  CHECK(base::wait_for(pid).success());
}

TEST_CASE("spawn reports a command that cannot be executed") {
  base::SpawnOptions o;
  o.argv = {"/nonexistent/slipway-test-binary"};
  o.env = base_env();
  try {
    base::spawn(o);
    FAIL("spawn should have thrown");
  } catch (const std::system_error& e) {
    CHECK(e.code().value() == ENOENT);
    CHECK_THAT(e.what(), Catch::Contains("/nonexistent/slipway-test-binary"));
  }
}

TEST_CASE("spawn names the variable that makes exec fail with E2BIG") {
  base::SpawnOptions o;
  o.argv = {"/bin/true"};
  o.env = base_env();
  o.env.push_back("SLIPWAY_ADDR_SERVER_RPC=" + std::string(140000, '1'));
  try {
    base::spawn(o);
    FAIL("spawn of a 140 kB variable succeeded");
  } catch (const std::system_error& e) {
    CHECK(e.code().value() == E2BIG);
    CHECK_THAT(e.what(), Catch::Contains("variable SLIPWAY_ADDR_SERVER_RPC is 140025 bytes, over Linux's "
                                         "131072 bytes for one variable"));
  }
}

TEST_CASE("spawn reports a missing working directory") {
  base::SpawnOptions o;
  o.argv = {"true"};
  o.env = base_env();
  o.workdir = "/nonexistent-dir-slipway";
  CHECK_THROWS_AS(base::spawn(o), std::system_error);
}

TEST_CASE("exit statuses are described like a shell would") {
  base::SpawnOptions o;
  o.env = base_env();
  o.argv = {"sh", "-c", "exit 3"};
  auto status = base::wait_for(base::spawn(o));
  CHECK(status.code == 3);
  CHECK(status.describe() == "exited with status 3");
  o.argv = {"sh", "-c", "kill -9 $$"};
  status = base::wait_for(base::spawn(o));
  CHECK(status.signaled);
  CHECK(status.shell_code() == 137);
  CHECK_THAT(status.describe(), Catch::StartsWith("killed by signal 9"));
}

TEST_CASE("a new process group receives group signals") {
  base::SpawnOptions o;
  o.env = base_env();
  o.argv = {"sleep", "30"};
  pid_t pid = base::spawn(o);
  CHECK(getpgid(pid) == pid);
  base::signal_group(pid, SIGTERM);
  auto status = base::wait_for(pid);
  CHECK(status.signaled);
  CHECK(status.code == SIGTERM);
}

TEST_CASE("descendants are found through /proc and terminated, orphans included") {
  // The shell starts a grandchild and exits at once: the grandchild is an
  // orphan that only a subreaper keeps in our tree.
  base::become_subreaper();
  base::SpawnOptions o;
  o.env = base_env();
  o.argv = {"sh", "-c", "sleep 60 & echo $! ; exit 0"};
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  o.stdout_fd = fds[1];
  pid_t pid = base::spawn(o);
  close(fds[1]);
  char buf[32] = {};
  REQUIRE(read(fds[0], buf, sizeof buf - 1) > 0);
  close(fds[0]);
  pid_t grandchild = static_cast<pid_t>(std::stol(buf));
  base::wait_for(pid);
  auto found = base::descendants_of(getpid());
  CHECK(std::find(found.begin(), found.end(), grandchild) != found.end());
  base::terminate_descendants(2000ms);
  CHECK(kill(grandchild, 0) != 0);
}

namespace {
// Gone, or a zombie nobody reaped yet (it is dead all the same).
bool dead(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  std::FILE* stat = std::fopen(path, "r");
  if (stat == nullptr) return true;
  char state = '?';
  const int got = std::fscanf(stat, "%*d (%*[^)]) %c", &state);
  std::fclose(stat);
  return got != 1 || state == 'Z';
}
}  // namespace

TEST_CASE("a child's whole process group dies with the process that spawned it, SIGKILL included") {
  // P spawns a shell that starts a child in its group and ignores SIGTERM
  // and SIGHUP; no parent-death signal: the lifeline alone must do it.
  int pids[2];
  REQUIRE(pipe(pids) == 0);
  const pid_t parent = fork();
  REQUIRE(parent >= 0);
  if (parent == 0) {
    base::SpawnOptions o;
    o.env = base_env();
    o.argv = {"sh", "-c", "trap '' TERM HUP; sleep 60 & echo $$ $!; wait"};
    o.group_dies_with_parent = true;
    o.stdout_fd = pids[1];
    base::spawn(o);
    pause();
    _exit(0);
  }
  close(pids[1]);
  char buf[64] = {};
  REQUIRE(read(pids[0], buf, sizeof buf - 1) > 0);
  close(pids[0]);
  long shell = 0, child = 0;
  REQUIRE(std::sscanf(buf, "%ld %ld", &shell, &child) == 2);
  CHECK_FALSE(dead(static_cast<pid_t>(child)));
  kill(parent, SIGKILL);
  base::wait_for(parent);
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while ((!dead(static_cast<pid_t>(shell)) || !dead(static_cast<pid_t>(child))) &&
         std::chrono::steady_clock::now() < deadline) {
    while (base::try_reap_any()) {
    }
    std::this_thread::sleep_for(20ms);
  }
  CHECK(dead(static_cast<pid_t>(shell)));
  CHECK(dead(static_cast<pid_t>(child)));
  kill(static_cast<pid_t>(child), SIGKILL);  // whatever happened, leave nothing
  kill(static_cast<pid_t>(shell), SIGKILL);
}
