// LinePrefixer: whole lines behind the task's name, raw bytes in the log.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "slipway/exec/line_prefixer.hpp"

using slipway::exec::LinePrefixer;

namespace {
// A pipe whose read end collects what was written.
struct Sink {
  int fds[2];
  Sink() {
    REQUIRE(pipe2(fds, O_NONBLOCK) == 0);
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
  }
  ~Sink() {
    close(fds[0]);
    close(fds[1]);
  }
  std::string drain() {
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    return out;
  }
};
}  // namespace

TEST_CASE("lines split across chunks come out whole and prefixed") {
  Sink terminal, log;
  LinePrefixer p("learner.0: ", terminal.fds[1], log.fds[1]);
  p.feed("hel");
  CHECK(terminal.drain().empty());
  p.feed("lo\nwor");
  CHECK(terminal.drain() == "learner.0: hello\n");
  p.feed("ld\nbye\n");
  CHECK(terminal.drain() == "learner.0: world\nlearner.0: bye\n");
  CHECK(log.drain() == "hello\nworld\nbye\n");
}

TEST_CASE("a last line without newline is written at finish") {
  Sink terminal, log;
  LinePrefixer p("a.1: ", terminal.fds[1], log.fds[1]);
  p.feed("no newline");
  p.finish();
  CHECK(terminal.drain() == "a.1: no newline\n");
  CHECK(log.drain() == "no newline\n");
}

TEST_CASE("an endless line is cut into bounded pieces") {
  Sink terminal, log;
  LinePrefixer p("x.0: ", terminal.fds[1], -1);
  std::string big(LinePrefixer::kMaxLine + 10, 'z');
  p.feed(big);
  std::string out = terminal.drain();
  CHECK(out.size() == 5 + LinePrefixer::kMaxLine + 1);
  p.finish();
  CHECK(terminal.drain() == "x.0: " + std::string(10, 'z') + "\n");
}
