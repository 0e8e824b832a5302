// TaskHooks: how other layers (the PMIx server host, channels) take part in
// a task's launch without the agent knowing them. slipway-exec's main
// decides which hooks run; the agent calls them in order.
//
// Contract: before_start runs once per task after its addresses are
// resolved and before its command starts; it may add variables to `env`
// (the command's environment) and may use the task's Wiring (e.g. the
// rendezvous client behind it). after_exit runs once the command has ended
// and every descendant is gone, before the agent leaves the rendezvous.
// Throwing from before_start fails the task with the exception's message.
#pragma once

#include "slipway/core/environment.hpp"
#include "slipway/exec/wiring.hpp"

namespace slipway::exec {

class TaskHooks {
 public:
  virtual ~TaskHooks() = default;
  virtual void before_start(const core::Plan& plan, const core::Task& task, Wiring& wiring,
                            core::EnvMap& env) = 0;
  virtual void after_exit(const core::Task& task, int exit_code) = 0;
};

}  // namespace slipway::exec
