// Private: the rendezvous's logging. Every line goes to stderr through the
// logger named "rendezvous" (never stdout, where a launcher's tasks write);
// text a peer chose is escaped (printable.hpp) before it reaches a line; messages a peer can
// trigger at will are throttled.
#pragma once

#include <spdlog/spdlog.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "slipway/rendezvous/engine.hpp"
#include "slipway/rendezvous/printable.hpp"

namespace slipway::rendezvous {

// The logger registered as "rendezvous" (created on stderr, at spdlog's
// global level, when none is registered: a test may register its own).
std::shared_ptr<spdlog::logger> rdzv_log();

// At most one message a second; the next one says how many were left out.
class LogThrottle {
 public:
  // True when a message may be logged at `now`; `skipped` is then how many
  // were not since the last one.
  bool allow(TimePoint now, std::uint64_t& skipped) {
    if (last_ != TimePoint::min() && now - last_ < std::chrono::seconds(1)) {
      ++not_logged_;
      return false;
    }
    last_ = now;
    skipped = not_logged_;
    not_logged_ = 0;
    return true;
  }

 private:
  TimePoint last_ = TimePoint::min();
  std::uint64_t not_logged_ = 0;
};

}  // namespace slipway::rendezvous
