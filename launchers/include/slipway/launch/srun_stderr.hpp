// What the steps' sruns write on their standard error: passed on to the
// controller's own standard error line by line, as before, with Slurm's own
// lines ("srun: ...", "slurmstepd: ...") kept per step, so that a step that
// ended without running its tasks can be reported with Slurm's reason
// ("srun: error: task 0 launch failed: Plugin initialization failed": srun
// itself exits 0 then).
//
// Contract:
// - SrunMessages is I/O-free: feed() takes bytes and returns the complete
//   lines to pass on; finish() the unterminated rest. A line longer than
//   kMaxLineBytes is passed on in pieces. slurm_lines() are the last
//   kKeptLines of Slurm's lines, each cut to kKeptLineBytes, joined by "; ".
// - SrunStderr owns one pipe per running srun, and passes its lines on
//   through a TerminalStream (never blocking the controller's loop on a
//   reader that stalls, as the launcher's own lines): open() gives the write end
//   for the spawn (close it after the spawn) and adopt(pid) files the read
//   end under the srun's pid; watch()/watched() read what is there without
//   blocking; ended(pid) reads the rest once that srun has been reaped,
//   passes it on, closes the pipe and returns the step's slurm_lines().
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <cstddef>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "slipway/base/poll_source.hpp"

#include "slipway/base/terminal_stream.hpp"
#include "slipway/base/unique_fd.hpp"

namespace slipway::launch {

class SrunMessages {
 public:
  static constexpr std::size_t kMaxLineBytes = 64 * 1024;
  static constexpr std::size_t kKeptLines = 4;
  static constexpr std::size_t kKeptLineBytes = 400;

  std::string feed(std::string_view bytes);
  std::string finish();
  std::string slurm_lines() const;

 private:
  void keep_if_slurms(std::string_view line);

  std::string partial_;
  std::deque<std::string> kept_;
};

class SrunStderr final : public base::PollSource {
 public:
  explicit SrunStderr(base::TerminalStream& forward);

  base::UniqueFd open();
  void adopt(pid_t pid);
  void watch(std::vector<pollfd>& fds) override;
  void watched(const pollfd* fds, std::size_t count) override;
  std::string ended(pid_t pid);

 private:
  struct Pipe {
    base::UniqueFd read_end;
    SrunMessages messages;
  };
  // Reads what `pipe` holds now, up to `budget` bytes; closes it at end of
  // file.
  void drain(Pipe& pipe, std::size_t budget);

  base::TerminalStream& forward_;
  base::UniqueFd pending_;  // read end of the pipe last opened, not yet adopted
  std::map<pid_t, Pipe> pipes_;
};

}  // namespace slipway::launch
