// UsagePublisher: how an agent reports the CPU and memory of its tasks
// (issue 29): the program key usage/NODE.REPLICA with usage_json()'s
// document, from each task's live process tree (process_usage.hpp).
//
// Contract: the owner's loop calls sample() at next_sample() or later,
// with the tasks whose command runs now. For each, the tree is read and
// its usage put when it differs from the last one put, or `refresh` after
// that put; a task whose put is not answered yet skips its turn (a slow
// rendezvous never piles up puts). A task no longer given (its command
// exited) is forgotten: nothing more is put for it. A put that fails is
// tried again at the next sample and said once per task through `log`
// ("NODE.REPLICA: slipway-exec: ..."); it never throws and never stops a
// task. sample() does no more than the bounded /proc reads of
// tree_usage() and hands puts to `put` (which must not block).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "slipway/core/contract.hpp"
#include "slipway/exec/process_usage.hpp"

namespace slipway::exec {

class UsagePublisher {
 public:
  using Clock = std::chrono::steady_clock;
  // Told once whether a put reached the rendezvous (any thread).
  using Done = std::function<void(bool ok, const std::string& error)>;
  // Sends `value` as program key `key`; answers through `done`, or throws.
  using Put = std::function<void(const std::string& key, const std::string& value, Done done)>;
  using Log = std::function<void(const std::string& line)>;

  struct Task {
    std::string name;  // NODE.REPLICA
    pid_t pid = 0;     // its command
    Put put;
  };
  struct Options {
    std::chrono::milliseconds every{2000};
    std::chrono::milliseconds refresh{10000};
    long ticks_per_second = 100;
    long page_size = 4096;
    TreeLimits limits;
  };
  // Options from this host: sysconf's clock ticks and page size.
  static Options host_options();

  UsagePublisher(ProcSource& source, Options options, Log log);
  ~UsagePublisher();
  UsagePublisher(const UsagePublisher&) = delete;
  UsagePublisher& operator=(const UsagePublisher&) = delete;

  Clock::time_point next_sample() const { return next_sample_; }
  void sample(Clock::time_point now, std::int64_t unix_ms, const std::vector<Task>& tasks);

  static std::string key(const std::string& task) { return std::string(core::keys::kUsagePrefix) + task; }

 private:
  struct Answer;  // what the last put's done said (shared with it)
  struct State {
    std::optional<ProcessUsage> last;  // put last (nothing: put at the next sample)
    Clock::time_point put_at{};
    std::shared_ptr<Answer> answer;
    bool failure_said = false;
  };

  ProcSource& source_;
  Options options_;
  Log log_;
  Clock::time_point next_sample_{};
  std::map<std::string, State> tasks_;
};

}  // namespace slipway::exec
