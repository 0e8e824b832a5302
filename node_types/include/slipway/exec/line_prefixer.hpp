// LinePrefixer: turns a task's output stream into whole lines, each written
// to the terminal behind the task's name ("learner.0: ...") and, unprefixed,
// to the task's log file.
//
// Contract: feed() takes any chunk of bytes; only whole lines are written
// (one write() per chunk, so lines of different tasks never interleave).
// A line longer than kMaxLine is written in pieces. finish() writes what is
// left as a last line. Write errors on the terminal are ignored (a closed
// terminal must not stop the program); the log file always gets the bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace slipway::exec {

class LinePrefixer {
 public:
  static constexpr std::size_t kMaxLine = 64 * 1024;

  LinePrefixer(std::string prefix, int terminal_fd, int log_fd)
      : prefix_(std::move(prefix)), terminal_fd_(terminal_fd), log_fd_(log_fd) {}

  void feed(std::string_view bytes);
  void finish();
  // The log file from now on (-1: none).
  void set_log_fd(int fd) { log_fd_ = fd; }

 private:
  void emit(std::string_view line_with_newline, std::string& terminal_out);

  std::string prefix_;
  int terminal_fd_;
  int log_fd_;
  std::string partial_;
};

// Writes all of `data` to `fd`, retrying on EINTR and short writes; returns
// false on any other error.
bool write_all(int fd, std::string_view data);

}  // namespace slipway::exec
