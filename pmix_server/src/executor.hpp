// Executor: the PMIx server host's own event loop, one thread running
// posted jobs in order. Upcalls post here and return at once (openpmix's
// rule); all of the host's state is touched only on this thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace slipway::pmix::detail {

class Executor {
 public:
  Executor();
  ~Executor();  // stop()
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Thread-safe; returns false (dropping the job) after stop(). A job that
  // throws is reported to `on_error` (if set) and the loop goes on.
  bool post(std::function<void()> job);
  // Runs `job` on the loop and waits for it, rethrowing what it throws
  // (never call from the loop; throws std::runtime_error after stop()).
  void run_sync(std::function<void()> job);
  // Drops what is queued, waits for the running job, joins the thread.
  void stop();
  bool on_loop_thread() const { return std::this_thread::get_id() == thread_.get_id(); }

  std::function<void(const std::string&)> on_error;

 private:
  void loop();
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace slipway::pmix::detail
