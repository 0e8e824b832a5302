// PeriodicThread: a thread of its own that runs `turn` at once and then
// every `every`, for the shard's watches (notice_watch.hpp) and reports
// (stats_reporter.hpp).
//
// Contract: the destructor stops the thread after the turn in progress (it
// never interrupts one) and joins it. Declare it last in its owner, so
// that it stops before anything `turn` uses goes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace slipway::replay {

class PeriodicThread {
 public:
  PeriodicThread(std::function<void()> turn, std::chrono::milliseconds every);
  ~PeriodicThread();
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

 private:
  void loop();

  std::function<void()> turn_;
  std::chrono::milliseconds every_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace slipway::replay
