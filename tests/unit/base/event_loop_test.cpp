// base::EventLoop with real processes, signals and threads: children
// reaped on SIGCHLD or every turn, signals handed on, work posted from
// another thread, the order of one turn, and the deadlines it keeps.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "slipway/base/event_loop.hpp"

using namespace slipway;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

pid_t child_exiting_with(int code) {
  const pid_t pid = fork();
  if (pid == 0) _exit(code);
  REQUIRE(pid > 0);
  return pid;
}

// Waits until `pid` has exited, leaving it to be reaped.
void wait_exited(pid_t pid) {
  siginfo_t info{};
  REQUIRE(waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) == 0);
}

// A source with nothing to watch and a deadline of its own.
class DeadlineOnly : public base::PollSource {
 public:
  explicit DeadlineOnly(Clock::time_point at) : at_(at) {}
  void watch(std::vector<pollfd>&) override {}
  void watched(const pollfd*, std::size_t) override { ++turns; }
  std::optional<Clock::time_point> deadline() const override { return at_; }
  int turns = 0;

 private:
  Clock::time_point at_;
};

// A pipe's read end as a source: what it reads is appended to `order`.
class PipeSource : public base::PollSource {
 public:
  PipeSource(int fd, std::vector<std::string>& order) : fd_(fd), order_(order) {}
  void watch(std::vector<pollfd>& fds) override { fds.push_back({fd_, POLLIN, 0}); }
  void watched(const pollfd* fds, std::size_t count) override {
    REQUIRE(count == 1);
    if (!(fds[0].revents & POLLIN)) return;
    char c = 0;
    REQUIRE(::read(fd_, &c, 1) == 1);
    order_.push_back(std::string("source ") + c);
  }

 private:
  int fd_;
  std::vector<std::string>& order_;
};

}  // namespace

TEST_CASE("a child's exit is reported when SIGCHLD comes, with its status") {
  base::block_signals({SIGCHLD});
  base::EventLoop loop({SIGCHLD});
  const pid_t child = child_exiting_with(3);
  int status = -1;
  loop.on_child_exit([&](pid_t pid, const base::ExitStatus& exit) {
    if (pid == child) status = exit.shell_code();  // not another test's leftover
  });
  const auto give_up = Clock::now() + 10s;
  while (status < 0 && Clock::now() < give_up) REQUIRE(loop.turn(give_up));
  CHECK(status == 3);
}

TEST_CASE("signals other than SIGCHLD go to on_signal") {
  base::block_signals({SIGUSR1, SIGCHLD});
  base::EventLoop loop({SIGUSR1, SIGCHLD});
  std::vector<int> seen;
  loop.on_signal([&](int sig) { seen.push_back(sig); });
  REQUIRE(::kill(getpid(), SIGUSR1) == 0);
  REQUIRE(loop.turn(Clock::now() + 10s));
  CHECK(seen == std::vector<int>{SIGUSR1});
}

TEST_CASE("work posted from another thread runs on the loop's thread, in order, and what it posts runs in the same turn") {
  base::block_signals({SIGCHLD});
  base::EventLoop loop({SIGCHLD});
  const auto loop_thread = std::this_thread::get_id();
  std::vector<std::string> order;
  bool on_loop_thread = true;
  std::thread poster([&] {
    for (const char* name : {"one", "two"}) {
      loop.post([&, name] {
        on_loop_thread = on_loop_thread && std::this_thread::get_id() == loop_thread;
        order.emplace_back(name);
        if (order.size() == 2) loop.post([&] { order.emplace_back("posted by two"); });
      });
    }
  });
  poster.join();
  REQUIRE(loop.turn(Clock::now() + 10s));
  CHECK(order == std::vector<std::string>{"one", "two", "posted by two"});
  CHECK(on_loop_thread);
}

TEST_CASE("in one turn: posted work, then the sources, then the exits (posted work again first)") {
  base::block_signals({SIGCHLD});
  base::EventLoop loop({SIGCHLD});
  std::vector<std::string> order;
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  PipeSource source(pipe_fds[0], order);
  loop.add_source(source);
  const pid_t child = child_exiting_with(0);
  loop.on_child_exit([&](pid_t pid, const base::ExitStatus&) {
    if (pid == child) order.emplace_back("exit");
  });
  wait_exited(child);
  REQUIRE(::write(pipe_fds[1], "x", 1) == 1);
  loop.post([&] { order.emplace_back("posted"); });
  REQUIRE(loop.turn(Clock::now() + 10s));
  CHECK(order == std::vector<std::string>{"posted", "source x", "exit"});
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

TEST_CASE("without SIGCHLD, children are reaped every turn and no turn waits longer than the reap interval") {
  base::EventLoop loop({}, base::EventLoop::Reaping::each_turn);
  const pid_t child = child_exiting_with(7);
  int status = -1;
  loop.on_child_exit([&](pid_t pid, const base::ExitStatus& exit) {
    if (pid == child) status = exit.shell_code();
  });
  wait_exited(child);
  const auto started = Clock::now();
  REQUIRE(loop.turn(std::nullopt));  // no deadline: the reap interval ends the wait
  CHECK(Clock::now() - started < 5s);
  CHECK(status == 7);
}

TEST_CASE("a turn ends at the earliest of its deadline and its sources' deadlines") {
  base::block_signals({SIGCHLD});
  base::EventLoop loop({SIGCHLD});
  DeadlineOnly source(Clock::now() + 100ms);
  loop.add_source(source);
  const auto started = Clock::now();
  REQUIRE(loop.turn(Clock::now() + 20s));
  const auto waited = Clock::now() - started;
  CHECK(waited >= 99ms);
  CHECK(waited < 10s);
  CHECK(source.turns == 1);
  const auto again = Clock::now();
  REQUIRE(loop.turn(Clock::now() + 50ms));  // the source's deadline has passed: no wait
  CHECK(Clock::now() - again < 5s);
}
