// EventLoop: the one event loop of a process that supervises children (the
// launcher, the task agent, the guard around `slipway run`, the task
// runner's tests): signals, child exits, descriptors (PollSources),
// deadlines, work posted from other threads, and the non-blocking
// terminal streams' writes and final flush.
//
// Contract:
// - EventLoop(signals, reaping) reads `signals` from a signalfd. They must
//   be blocked in every thread of the process before the loop exists
//   (block_signals(), before any thread starts), or one may be lost.
// - Children are reaped with waitpid(-1, WNOHANG), each reported to
//   on_child_exit: when SIGCHLD comes (Reaping::on_sigchld, SIGCHLD then
//   belongs in `signals`), or at the end of every turn, with no turn waiting
//   longer than kReapInterval (Reaping::each_turn: for a process whose
//   threads cannot all block SIGCHLD).
// - turn(deadline) waits until a descriptor is ready, a signal or posted
//   work comes, or the earliest of `deadline` (nothing: none) and the
//   sources' own deadlines passes; then, in this order: the terminal
//   streams take what they can; posted work runs; each source's watched()
//   runs, in the order the sources were added (a task's output before its
//   exit); the signals are handled, each but SIGCHLD by on_signal, SIGCHLD
//   by running posted work once more and then reaping (a leave another
//   thread posted comes before its process's end). Returns false only when
//   poll() itself fails (not EINTR).
// - post(work) may be called from any thread: `work` runs on the loop's
//   thread in its next turn (which it wakes). Work that posted work posts
//   runs in the same turn.
// - flush_output(deadline, stops) writes what stdout and stderr still hold
//   (terminal_stream.hpp), until `deadline`, or until a signal for which
//   stops(sig) is true comes; signals read meanwhile are consumed, and
//   children they announce are not reaped.
// - Everything but post() runs on one thread. Sources are not owned.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "slipway/base/poll_source.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/terminal_stream.hpp"
#include "slipway/base/unique_fd.hpp"

namespace slipway::base {

// Blocks `signals` in the calling thread (and the threads it starts after).
void block_signals(const std::vector<int>& signals);

class EventLoop {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Reaping { on_sigchld, each_turn };
  static constexpr std::chrono::milliseconds kReapInterval{20};

  explicit EventLoop(const std::vector<int>& signals, Reaping reaping = Reaping::on_sigchld);
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  void on_signal(std::function<void(int sig)> handler) { on_signal_ = std::move(handler); }
  void on_child_exit(std::function<void(pid_t, const ExitStatus&)> handler) {
    on_child_exit_ = std::move(handler);
  }
  void add_source(PollSource& source) { sources_.push_back(&source); }
  // Between turns only.
  void remove_source(PollSource& source) { std::erase(sources_, &source); }

  void post(std::function<void()> work);
  bool turn(std::optional<Clock::time_point> deadline);
  void flush_output(Clock::time_point deadline, const std::function<bool(int sig)>& stops);

 private:
  void run_posted();
  void reap();
  void handle_signals();

  UniqueFd signals_;
  UniqueFd wakeup_;
  Reaping reaping_;
  std::function<void(int)> on_signal_;
  std::function<void(pid_t, const ExitStatus&)> on_child_exit_;
  std::vector<PollSource*> sources_;
  TerminalWrites terminal_writes_;
  std::mutex posted_mutex_;
  std::deque<std::function<void()>> posted_;
  std::vector<pollfd> fds_;
  std::vector<std::size_t> source_begin_;
};

}  // namespace slipway::base
