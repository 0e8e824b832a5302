// LinePrefixer: turns a task's output stream into whole lines, each written
// to the terminal behind the task's name ("learner.0: ...").
//
// Contract: feed() takes any chunk of bytes; only whole lines are written
// (one write per chunk, so lines of different tasks never interleave). A
// line longer than kMaxLine is written in pieces. finish() writes what is
// left as a last line and says whether there was any. The terminal is a
// TerminalStream (terminal_stream.hpp): blocking, or never blocking with a
// bounded buffer; a write error there never stops the program. The task's
// log is written by its owner (task_log.hpp), not here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "slipway/base/terminal_stream.hpp"

namespace slipway::tasks {

class LinePrefixer {
 public:
  static constexpr std::size_t kMaxLine = 64 * 1024;

  LinePrefixer(std::string prefix, base::TerminalStream& terminal)
      : prefix_(std::move(prefix)), terminal_(terminal) {}

  void feed(std::string_view bytes);
  // Writes the partial last line, if any (with a newline); returns whether
  // there was one.
  bool finish();

 private:
  void emit(std::string_view line_with_newline, std::string& terminal_out);

  std::string prefix_;
  base::TerminalStream& terminal_;
  std::string partial_;
};

}  // namespace slipway::tasks
