// The replay shard's stats puts, on a thread of their own (see
// stats_reporter.hpp).
#include "stats_reporter.hpp"

#include <mutex>

namespace slipway::replay {

struct StatsReporter::Answer {
  std::mutex mutex;
  bool in_flight = false;
  bool failed = false;  // since the last turn looked
  std::string error;
};

StatsReporter::StatsReporter(std::string key, std::function<ShardStats()> stats, Put put, Log log,
                             std::chrono::milliseconds every)
    : key_(std::move(key)),
      stats_(std::move(stats)),
      put_(std::move(put)),
      log_(std::move(log)),
      answer_(std::make_shared<Answer>()),
      thread_([this] { report(); }, every) {}

StatsReporter::~StatsReporter() = default;

void StatsReporter::report() {
  {
    std::lock_guard lock(answer_->mutex);
    if (answer_->in_flight) return;
    if (answer_->failed && !failure_said_) {
      failure_said_ = true;
      log_("cannot put " + key_ + " (" + answer_->error +
           "); the shard serves on, its tables are not shown until a put succeeds");
    }
    answer_->failed = false;
    answer_->in_flight = true;
  }
  const auto done = [answer = answer_](bool ok, const std::string& error) {
    std::lock_guard lock(answer->mutex);
    answer->in_flight = false;
    if (!ok) {
      answer->failed = true;
      answer->error = error;
    }
  };
  try {
    const auto unix_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    put_(key_, stats_json(stats_(), unix_ms), done);
  } catch (const std::exception& error) {
    done(false, error.what());
  }
}

}  // namespace slipway::replay
