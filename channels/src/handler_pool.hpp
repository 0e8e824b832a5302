// Threads that run method handlers when EndpointOptions::handler_threads > 0,
// so handlers may block (and make blocking calls) without stalling progress.
//
// Contract: submit() never blocks (the endpoint bounds how many requests are
// queued); stop() lets the running handlers finish, drops queued ones and
// joins. Tasks must not throw (the endpoint wraps handlers).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace slipway::channels::detail {

class HandlerPool {
 public:
  using Task = std::function<void()>;
  explicit HandlerPool(unsigned threads);
  ~HandlerPool();
  HandlerPool(const HandlerPool&) = delete;
  HandlerPool& operator=(const HandlerPool&) = delete;

  void submit(Task task);
  void stop();

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Task> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace slipway::channels::detail
