// The agent's usage/NODE.REPLICA puts: when to sample, when to put, and
// what a failed put leaves (see usage_publisher.hpp).
#include "slipway/exec/usage_publisher.hpp"

#include <unistd.h>

#include <atomic>
#include <mutex>

namespace slipway::exec {

struct UsagePublisher::Answer {
  std::atomic<bool> in_flight{false};
  std::mutex mutex;
  bool failed = false;  // since the last sample looked
  std::string error;
};

UsagePublisher::Options UsagePublisher::host_options() {
  Options options;
  options.ticks_per_second = ::sysconf(_SC_CLK_TCK);
  options.page_size = ::sysconf(_SC_PAGESIZE);
  return options;
}

UsagePublisher::UsagePublisher(ProcSource& source, Options options, Log log)
    : source_(source), options_(options), log_(std::move(log)) {}

UsagePublisher::~UsagePublisher() = default;

void UsagePublisher::sample(Clock::time_point now, std::int64_t unix_ms, const std::vector<Task>& tasks) {
  next_sample_ = now + options_.every;
  std::map<std::string, State> kept;
  for (const Task& task : tasks) {
    State state;
    if (auto it = tasks_.find(task.name); it != tasks_.end()) state = std::move(it->second);
    if (!state.answer) state.answer = std::make_shared<Answer>();
    Answer& answer = *state.answer;
    {
      std::lock_guard lock(answer.mutex);
      if (answer.failed) {
        answer.failed = false;
        state.last.reset();  // put again at once
        if (!state.failure_said) {
          state.failure_said = true;
          log_(task.name + ": slipway-exec: cannot put " + key(task.name) + " (" + answer.error +
               "); the task runs on, its CPU and memory are not shown until a put succeeds");
        }
      }
    }
    const auto usage = tree_usage(task.pid, source_, options_.ticks_per_second, options_.page_size, options_.limits);
    const bool due = usage && !answer.in_flight.load() &&
                     (!state.last || *state.last != *usage || now - state.put_at >= options_.refresh);
    if (due) {
      state.last = usage;
      state.put_at = now;
      answer.in_flight = true;
      std::shared_ptr<Answer> shared = state.answer;
      const auto done = [shared](bool ok, const std::string& error) {
        if (!ok) {
          std::lock_guard lock(shared->mutex);
          shared->failed = true;
          shared->error = error;
        }
        shared->in_flight = false;
      };
      try {
        task.put(key(task.name), usage_json(*usage, unix_ms), done);
      } catch (const std::exception& e) {
        done(false, e.what());
      }
    }
    kept.emplace(task.name, std::move(state));
  }
  tasks_ = std::move(kept);
}

}  // namespace slipway::exec
