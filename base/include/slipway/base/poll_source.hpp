// PollSource: something an event loop watches besides its own descriptors
// (a task runner's output pipes, srun's stderr), so one loop can serve
// several without knowing what they are.
//
// Contract, every turn of the loop: watch() appends the descriptors to
// poll; after poll, watched() gets exactly those entries back (with their
// revents) and does the work they allow without blocking; deadline() is the
// latest time the loop must come round for the source's own time-outs
// (nothing: no time-out), and watched() also acts on those that are due.
#pragma once

#include <poll.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

namespace slipway::base {

class PollSource {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~PollSource() = default;
  virtual void watch(std::vector<pollfd>& fds) = 0;
  virtual void watched(const pollfd* fds, std::size_t count) = 0;
  virtual std::optional<Clock::time_point> deadline() const { return std::nullopt; }
};

// poll()'s timeout for coming round by `deadline`: -1 without one, else
// the milliseconds left, between 0 and 60 s.
int poll_timeout_ms(std::optional<PollSource::Clock::time_point> deadline);

}  // namespace slipway::base
