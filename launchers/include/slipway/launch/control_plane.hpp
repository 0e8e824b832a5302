// ControlPlane: the launcher's handle on its in-process rendezvous server.
//
// Contract: the constructor starts the server (its own thread) on `bind`
// ("127.0.0.1" locally; an address every host reaches under Slurm) with a
// fresh secret; on_stop_request runs, on the server's thread, when a task
// or `slipway stop` asks the program to stop. announce_stop pushes
// "program stopping" to every task. The destructor stops the server.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace slipway::launch {

class ControlPlane {
 public:
  using StopRequest = std::function<void(const std::string& reason)>;
  ControlPlane(const std::string& bind, StopRequest on_stop_request);
  ~ControlPlane();
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  const std::string& endpoint() const;
  const std::string& token() const;
  void announce_stop(const std::string& reason);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace slipway::launch
