// base::run_captured with real commands: output and error captured apart
// or merged, input fed, bounded capture, the timeout, a command that
// cannot start, and a command that does not read its input (no SIGPIPE);
// base::write_all_to_pipe and send_all to a reader that is gone.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <system_error>

#include "slipway/base/environment.hpp"
#include "slipway/base/run_captured.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/base/write_all.hpp"

using namespace slipway;
using namespace std::chrono_literals;

namespace {
base::CaptureOptions shell(const std::string& script) {
  base::CaptureOptions options;
  options.argv = {"sh", "-c", script};
  options.env = base::this_environment();
  return options;
}
}  // namespace

TEST_CASE("run_captured keeps standard output and error apart, and the status") {
  const auto run = base::run_captured(shell("echo out; echo err >&2; exit 3"));
  CHECK(run.out == "out\n");
  CHECK(run.err == "err\n");
  CHECK(run.exit.code == 3);
  CHECK_FALSE(run.timed_out);
}

TEST_CASE("run_captured merges standard error into the output when asked") {
  auto options = shell("echo one; echo two >&2; echo three");
  options.merge_stderr = true;
  const auto run = base::run_captured(options);
  CHECK(run.out == "one\ntwo\nthree\n");
  CHECK(run.err.empty());
}

TEST_CASE("run_captured feeds its input and reads outputs larger than a pipe on both streams") {
  auto options = shell("cat; head -c 200000 /dev/zero >&2; head -c 200000 /dev/zero");
  options.input = std::string(300000, 'x');
  options.max_bytes = 1 << 20;
  const auto run = base::run_captured(options);
  CHECK(run.exit.success());
  CHECK(run.out.size() == 500000);
  CHECK(run.err.size() == 200000);
  CHECK_FALSE(run.truncated);
}

TEST_CASE("run_captured keeps at most max_bytes of each stream and says so") {
  auto options = shell("head -c 100000 /dev/zero");
  options.max_bytes = 1000;
  const auto run = base::run_captured(options);
  CHECK(run.exit.success());
  CHECK(run.out.size() == 1000);
  CHECK(run.truncated);
}

TEST_CASE("run_captured kills the command's process group at the timeout") {
  auto options = shell("sleep 30 & echo started; wait");
  options.timeout = 300ms;
  const auto started = std::chrono::steady_clock::now();
  const auto run = base::run_captured(options);
  CHECK(run.timed_out);
  CHECK(run.exit.signaled);
  CHECK(run.out == "started\n");
  CHECK(std::chrono::steady_clock::now() - started < 10s);
}

TEST_CASE("run_captured of a command that does not read its input is no SIGPIPE") {
  auto options = shell("exit 0");
  options.input = std::string(1 << 20, 'x');
  const auto run = base::run_captured(options);
  CHECK(run.exit.success());
}

TEST_CASE("run_captured of a command that cannot start throws") {
  base::CaptureOptions options;
  options.argv = {"/nonexistent/slipway-no-such-command"};
  CHECK_THROWS_AS(base::run_captured(options), std::system_error);
}

TEST_CASE("first_line cuts at the first newline and at max_chars") {
  CHECK(base::first_line("one\ntwo") == "one");
  CHECK(base::first_line(std::string(10, 'a'), 4) == "aaaa...");
}

TEST_CASE("write_all_to_pipe and send_all to a reader that is gone fail with EPIPE, not SIGPIPE") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  base::UniqueFd read_end(fds[0]), write_end(fds[1]);
  read_end.reset();
  CHECK_FALSE(base::write_all_to_pipe(write_end.get(), "data"));
  CHECK(errno == EPIPE);
  int pair[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
  base::UniqueFd mine(pair[0]), theirs(pair[1]);
  theirs.reset();
  CHECK_FALSE(base::send_all(mine.get(), "data"));
  CHECK(errno == EPIPE);
}
