// Child: one child process owned by an object, for the benchmarks and
// tests that start helper programs (servers, peers, clients) and talk to
// them line by line.
//
// Contract:
// - The constructor spawns argv (base::spawn: PATH search, exactly `env`)
//   with its standard input on a pipe this object writes (send_line), and
//   its standard output on a pipe (read_line), discarded, or inherited;
//   standard error is inherited. It throws std::system_error when the
//   program cannot be started.
// - read_line() returns its next output line (without the newline) within
//   `timeout`, or nothing at the timeout or at the end of its output.
//   send_line() returns false once it stopped reading.
// - stop() ends it and reaps it once: its standard input is closed; with
//   `terminate_on_stop` it gets SIGTERM (else it is given the grace to end
//   by itself, as a server whose input closed does); after `stop_grace` it
//   gets SIGKILL. The destructor stops it. wait() reaps it without a
//   signal; poll_exit() says whether it has ended, without waiting.
// - Movable, not copyable; a moved-from Child owns nothing.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "slipway/base/process.hpp"
#include "slipway/base/unique_fd.hpp"

namespace slipway::base {

struct ChildOptions {
  enum class Output { pipe, discard, inherit };
  std::vector<std::string> argv;
  std::vector<std::string> env;  // the child's whole environment
  Output output = Output::pipe;
  bool terminate_on_stop = true;
  std::chrono::milliseconds stop_grace{5000};
};

class Child {
 public:
  explicit Child(ChildOptions options);
  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();

  pid_t pid() const noexcept { return pid_; }
  bool send_line(std::string_view text);
  void close_stdin() noexcept { stdin_.reset(); }
  std::optional<std::string> read_line(std::chrono::milliseconds timeout);
  void signal(int signal) const noexcept;
  std::optional<ExitStatus> poll_exit();
  ExitStatus wait();
  ExitStatus stop();

 private:
  ChildOptions options_;
  pid_t pid_ = -1;
  std::optional<ExitStatus> ended_;
  UniqueFd stdin_;
  UniqueFd stdout_;
  std::string buffer_;
};

}  // namespace slipway::base
