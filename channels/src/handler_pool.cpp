// A fixed set of handler threads over one FIFO queue.
#include "handler_pool.hpp"

#include <pthread.h>

namespace slipway::channels::detail {

HandlerPool::HandlerPool(unsigned threads) {
  threads_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      ::pthread_setname_np(::pthread_self(), "courier-handler");
      run();
    });
  }
}

HandlerPool::~HandlerPool() { stop(); }

void HandlerPool::submit(Task task) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    tasks_.push_back(std::move(task));
  }
  ready_.notify_one();
}

void HandlerPool::stop() {
  std::deque<Task> dropped;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    dropped.swap(tasks_);
  }
  dropped.clear();  // outside the lock: dropping a task answers its call
  ready_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
    if (t.joinable()) t.detach();
  }
  threads_.clear();
}

void HandlerPool::run() {
  for (;;) {
    Task task;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (stopping_) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace slipway::channels::detail
