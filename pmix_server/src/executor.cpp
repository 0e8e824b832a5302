// The host's event loop (executor.hpp).
#include "executor.hpp"

#include <exception>
#include <future>
#include <stdexcept>
#include <string>

namespace slipway::pmix::detail {

Executor::Executor() : thread_([this] { loop(); }) {}

Executor::~Executor() { stop(); }

bool Executor::post(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return false;
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void Executor::run_sync(std::function<void()> job) {
  std::promise<void> done;
  auto finished = done.get_future();
  bool posted = post([&] {
    try {
      job();
      done.set_value();
    } catch (...) {
      done.set_exception(std::current_exception());
    }
  });
  if (!posted) throw std::runtime_error("the PMIx server host is stopping");
  finished.get();
}

void Executor::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
    jobs_.clear();
  }
  wake_.notify_all();
  if (thread_.joinable() && !on_loop_thread()) thread_.join();
}

void Executor::loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (stopping_) return;
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    try {
      job();
    } catch (const std::exception& e) {
      if (on_error) on_error(e.what());
    } catch (...) {
      if (on_error) on_error("unknown exception");
    }
    lock.lock();
  }
}

}  // namespace slipway::pmix::detail
