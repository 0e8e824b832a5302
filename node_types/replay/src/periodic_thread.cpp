// A thread that runs a turn at once and then periodically (see
// periodic_thread.hpp).
#include "periodic_thread.hpp"

namespace slipway::replay {

PeriodicThread::PeriodicThread(std::function<void()> turn, std::chrono::milliseconds every)
    : turn_(std::move(turn)), every_(every) {
  thread_ = std::thread([this] { loop(); });
}

PeriodicThread::~PeriodicThread() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void PeriodicThread::loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    turn_();
    lock.lock();
    wake_.wait_for(lock, every_, [this] { return stopping_; });
  }
}

}  // namespace slipway::replay
