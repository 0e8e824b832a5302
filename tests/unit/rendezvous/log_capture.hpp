// Test helper: captures what the rendezvous logs (its logger, "rendezvous")
// for the life of the object, then restores the one it replaced.
#pragma once

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

namespace slipway::rendezvous::test {

class LogCapture {
 public:
  LogCapture() : previous_(spdlog::get("rendezvous")) {
    spdlog::drop("rendezvous");
    auto logger = std::make_shared<spdlog::logger>("rendezvous", std::make_shared<spdlog::sinks::ostream_sink_st>(out_));
    logger->set_pattern("%v");
    spdlog::register_logger(logger);
  }
  ~LogCapture() {
    spdlog::drop("rendezvous");
    if (previous_) spdlog::register_logger(previous_);
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace slipway::rendezvous::test
