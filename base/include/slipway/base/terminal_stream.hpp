// TerminalStream: this process's stdout or stderr, as the launch layer
// writes task output and its own lines to it.
//
// Contract:
// - Until never_block() is called, write() is a plain blocking write of
//   everything (what a command-line tool does).
// - After never_block(bound), write() never blocks: it writes what the
//   reader takes now and keeps the rest in a buffer of at most `bound`
//   bytes; bytes beyond that are dropped, and once the buffer has room
//   again a marker line says how many lines were dropped ("slipway: [N
//   lines of output dropped here: ...]"). The caller's event loop polls
//   pollable() for POLLOUT while wants_write(), then calls on_writable().
//   The non-blocking writes use a file description of their own (reopened
//   through /proc/self/fd for a pipe, FIFO or terminal; send() with
//   MSG_DONTWAIT for a socket), so the flags of the description shared
//   with the user's shell are never changed. A regular file is written
//   directly (it never waits for a reader).
// - A reader that went away (EPIPE) ends all writing: the rest is dropped
//   silently, as SIGPIPE is ignored by the launchers.
// - flush_terminal_streams() writes what both streams hold, waiting at most
//   until `deadline`, and no longer once `stop_fd` (e.g. a signalfd; -1:
//   none) is readable and `stop()` says so: for the end of a launcher's or
//   agent's life, when a reader that stalled would otherwise hold it.
// - Single-threaded: one event loop writes to a stream.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "slipway/base/poll_source.hpp"
#include <string_view>

#include "slipway/base/unique_fd.hpp"

namespace slipway::base {

class TerminalStream {
 public:
  static constexpr std::size_t kDefaultBound = 4u << 20;

  explicit TerminalStream(int fd) : fd_(fd) {}
  TerminalStream(const TerminalStream&) = delete;
  TerminalStream& operator=(const TerminalStream&) = delete;

  void never_block(std::size_t bound = kDefaultBound);
  void write(std::string_view bytes);

  bool wants_write() const { return !gone_ && (pending_size() > 0 || dropped_lines_ > 0); }
  int pollable() const { return own_ ? own_.get() : fd_; }
  void on_writable();

  // Lines dropped so far (for tests and the marker).
  std::size_t dropped_lines() const { return dropped_total_; }

 private:
  enum class Mode { blocking, own_description, socket, toggle, direct };
  // Writes from `bytes` without blocking; returns how many were taken
  // (all of them when they were dropped for good).
  std::size_t try_write(std::string_view bytes);
  void append_marker();
  std::size_t pending_size() const { return pending_.size() - sent_; }

  int fd_;
  Mode mode_ = Mode::blocking;
  UniqueFd own_;
  std::size_t bound_ = kDefaultBound;
  std::string pending_;
  std::size_t sent_ = 0;  // bytes at the front of pending_ already written
  std::size_t dropped_lines_ = 0;  // since the last marker
  std::size_t dropped_total_ = 0;
  bool gone_ = false;
};

// The process's stdout and stderr streams.
TerminalStream& terminal_stdout();
TerminalStream& terminal_stderr();

void flush_terminal_streams(std::chrono::steady_clock::time_point deadline, int stop_fd = -1,
                            const std::function<bool()>& stop = {});

// The two streams as an event loop polls them: POLLOUT for each stream
// that has lines waiting for a slow reader, on_writable() when it may write.
class TerminalWrites final : public PollSource {
 public:
  void watch(std::vector<pollfd>& fds) override;
  void watched(const pollfd* fds, std::size_t count) override;

 private:
  std::vector<TerminalStream*> writing_;  // the stream of each descriptor watch() added
};

}  // namespace slipway::base
