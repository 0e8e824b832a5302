// StatsReporter: a replay shard's program key replay/stats/NODE.REPLICA
// (slipway/replay/stats.hpp), put every 2 s for the launcher's status and
// metrics (docs/observe.md).
//
// Contract: a thread of its own takes `stats` every `every` (the first at
// once) and hands stats_json() of it to `put`, which must not block (the
// rendezvous client's put_async). A put not answered yet makes the next
// turn wait (a slow rendezvous never piles puts up); a failed one is said
// once through `log` and tried again at the next turn; nothing here stops
// the shard. The destructor stops the thread after the turn in progress,
// without waiting for a put in flight (its answer finds its state shared).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "periodic_thread.hpp"
#include "slipway/replay/stats.hpp"

namespace slipway::replay {

class StatsReporter {
 public:
  using Done = std::function<void(bool ok, const std::string& error)>;
  using Put = std::function<void(const std::string& key, const std::string& value, Done done)>;
  using Log = std::function<void(const std::string&)>;

  StatsReporter(std::string key, std::function<ShardStats()> stats, Put put, Log log,
                std::chrono::milliseconds every = std::chrono::milliseconds(2000));
  ~StatsReporter();
  StatsReporter(const StatsReporter&) = delete;
  StatsReporter& operator=(const StatsReporter&) = delete;

 private:
  struct Answer;
  void report();

  std::string key_;
  std::function<ShardStats()> stats_;
  Put put_;
  Log log_;
  std::shared_ptr<Answer> answer_;
  bool failure_said_ = false;
  PeriodicThread thread_;  // last: stops first
};

}  // namespace slipway::replay
