// base::Child with real programs: lines both ways, the end of its output,
// and stop(): SIGTERM, or the grace to end by itself, then SIGKILL.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>

#include "slipway/base/child.hpp"
#include "slipway/base/environment.hpp"

using namespace slipway;
using namespace std::chrono_literals;

namespace {
base::ChildOptions shell(const std::string& script) {
  base::ChildOptions options;
  options.argv = {"sh", "-c", script};
  options.env = base::this_environment();
  return options;
}
}  // namespace

TEST_CASE("a child's lines are sent and read back, and its end is seen") {
  base::Child child(shell("while read line; do echo \"got $line\"; done; echo bye"));
  REQUIRE(child.send_line("one"));
  CHECK(child.read_line(10s) == "got one");
  child.close_stdin();
  CHECK(child.read_line(10s) == "bye");
  CHECK_FALSE(child.read_line(10s).has_value());
  const auto status = child.wait();
  CHECK(status.success());
  CHECK(child.poll_exit().has_value());
}

TEST_CASE("read_line gives nothing at its timeout") {
  base::Child child(shell("sleep 30"));
  const auto started = std::chrono::steady_clock::now();
  CHECK_FALSE(child.read_line(200ms).has_value());
  CHECK(std::chrono::steady_clock::now() - started >= 200ms);
  CHECK_FALSE(child.poll_exit().has_value());
}

TEST_CASE("stop() terminates a child with SIGTERM when asked to") {
  base::Child child(shell("exec sleep 30"));
  const auto status = child.stop();
  CHECK(status.signaled);
  CHECK(status.code == SIGTERM);
}

TEST_CASE("stop() gives a server the grace to end once its input closes, then kills it") {
  auto polite = shell("cat >/dev/null; exit 4");
  polite.terminate_on_stop = false;
  base::Child server(std::move(polite));
  CHECK(server.stop().code == 4);

  auto stubborn = shell("trap '' TERM; exec sleep 30");
  stubborn.terminate_on_stop = false;
  stubborn.stop_grace = 200ms;
  base::Child deaf(std::move(stubborn));
  const auto status = deaf.stop();
  CHECK(status.signaled);
  CHECK(status.code == SIGKILL);
}

TEST_CASE("a child whose output is discarded still runs to its end") {
  auto options = shell("echo lost; exit 2");
  options.output = base::ChildOptions::Output::discard;
  base::Child child(std::move(options));
  CHECK_FALSE(child.read_line(1s).has_value());
  CHECK(child.wait().code == 2);
}
