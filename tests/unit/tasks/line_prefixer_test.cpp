// LinePrefixer: whole lines behind the task's name.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "slipway/tasks/line_prefixer.hpp"
#include "slipway/base/terminal_stream.hpp"

using slipway::tasks::LinePrefixer;
using slipway::base::TerminalStream;

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
  Sink terminal;
  TerminalStream stream(terminal.fds[1]);
  LinePrefixer p("learner.0: ", stream);
  p.feed("hel");
  CHECK(terminal.drain().empty());
  p.feed("lo\nwor");
  CHECK(terminal.drain() == "learner.0: hello\n");
  p.feed("ld\nbye\n");
  CHECK(terminal.drain() == "learner.0: world\nlearner.0: bye\n");
}

TEST_CASE("a last line without newline is written at finish") {
  Sink terminal;
  TerminalStream stream(terminal.fds[1]);
  LinePrefixer p("a.1: ", stream);
  p.feed("no newline");
  CHECK(p.finish());
  CHECK(terminal.drain() == "a.1: no newline\n");
  CHECK_FALSE(p.finish());
}

TEST_CASE("an endless line is cut into bounded pieces") {
  Sink terminal;
  TerminalStream stream(terminal.fds[1]);
  LinePrefixer p("x.0: ", stream);
  std::string big(LinePrefixer::kMaxLine + 10, 'z');
  p.feed(big);
  std::string out = terminal.drain();
  CHECK(out.size() == 5 + LinePrefixer::kMaxLine + 1);
  p.finish();
  CHECK(terminal.drain() == "x.0: " + std::string(10, 'z') + "\n");
}

TEST_CASE("a terminal that stops reading never blocks: lines are dropped, then a marker") {
  int fds[2];
  REQUIRE(pipe2(fds, 0) == 0);  // a blocking pipe, as a shell gives
  TerminalStream stream(fds[1]);
  stream.never_block(64 * 1024);
  std::string line(99, 'x');
  line += '\n';
  for (int i = 0; i < 10000; ++i) stream.write(line);  // 1 MB into a 64 KiB pipe
  CHECK(stream.dropped_lines() > 0);
  CHECK(stream.wants_write());
  std::string got;
  char buf[65536];
  while (true) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    REQUIRE(n > 0);
    got.append(buf, static_cast<size_t>(n));
    stream.on_writable();
    if (!stream.wants_write() && got.find("dropped here") != std::string::npos) break;
  }
  CHECK(got.find("lines of output dropped here") != std::string::npos);
  CHECK((fcntl(fds[1], F_GETFL) & O_NONBLOCK) == 0);  // the shared description is untouched
  close(fds[0]);
  close(fds[1]);
}
