// LoopListener: what a part of a launcher hears from the launcher loop
// besides its units' lives (LauncherLoop::listen(); several may listen, in
// the order they were added): the local launcher's in-launcher tasks, the
// Slurm controller's steps and satellite jobs.
//
// Contract, all on the loop's thread: process_ended() for every child
// reaped (a unit's process, an orphan, a command of an in-launcher task),
// before the loop ends the units it carried; key_changed() for each key
// under ControlPlaneOptions::observed_key_prefixes that changed;
// notice_published() with each checkpoint notice's JSON
// (core/checkpoint_notice.hpp); turn_done() once every turn while the
// program runs, after the turn's events and resizes.
#pragma once

#include <sys/types.h>

#include <string>

#include "slipway/base/process.hpp"

namespace slipway::launch {

class LoopListener {
 public:
  virtual ~LoopListener() = default;
  virtual void process_ended(pid_t /*pid*/, const base::ExitStatus& /*status*/) {}
  virtual void key_changed(const std::string& /*key*/) {}
  virtual void notice_published(const std::string& /*notice*/) {}
  virtual void turn_done() {}
};

}  // namespace slipway::launch
