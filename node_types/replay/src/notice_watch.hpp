// NoticeWatch: the checkpoint notices of one task, as its agent writes them
// to the task's SLIPWAY_NOTICE_FILE (docs/replay.md, "Checkpoints"; the
// format is core/checkpoint_notice.hpp's).
//
// Contract: a thread of its own looks at the file every `every` (an lstat;
// the file is read again only when it changed) and calls on_notice, on that
// thread, once per notice: each time the file holds a seq other than the
// last one given (a notice already there at start included; seq grows by
// one per notice of a run, but a run resumed by a new job may count
// again from 1). The file is read at most
// core::kMaxNoticeBytes, never through a symbolic link nor waiting on a
// FIFO; a file that is missing is no notice, and one that is not a notice
// is said once (per version of it) through `log` and otherwise ignored.
// The destructor stops the thread, after the on_notice call in progress.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>

#include "periodic_thread.hpp"
#include "slipway/core/checkpoint_notice.hpp"

namespace slipway::replay {

class NoticeWatch {
 public:
  using OnNotice = std::function<void(const core::CheckpointNotice&)>;
  using Log = std::function<void(const std::string&)>;

  NoticeWatch(std::filesystem::path file, OnNotice on_notice, Log log,
              std::chrono::milliseconds every = std::chrono::milliseconds(100));
  ~NoticeWatch();
  NoticeWatch(const NoticeWatch&) = delete;
  NoticeWatch& operator=(const NoticeWatch&) = delete;

 private:
  void look();

  std::filesystem::path file_;
  OnNotice on_notice_;
  Log log_;
  std::string seen_;              // the version of the file last read ("" none)
  std::uint64_t last_seq_ = 0;    // the seq last given to on_notice (0: none)
  PeriodicThread thread_;         // last: stops first
};

}  // namespace slipway::replay
