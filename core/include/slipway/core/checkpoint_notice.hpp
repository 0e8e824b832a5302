// The program-wide checkpoint notice (docs/resume.md): what the launcher
// writes under the rendezvous key checkpoint/notice and what each task's
// agent copies to the task's SLIPWAY_NOTICE_FILE.
//
// Contract: format_notice writes one JSON object
// {"seq":N,"reason":"...","deadline_unix_ms":T,"stop":true|false};
// parse_notice reads it back, or nothing when the text is not such an object
// (over kMaxNoticeBytes, a field missing or of another type, seq 0, a
// reason over kMaxReasonBytes). seq grows by one per notice of a run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace slipway::core {

inline constexpr std::size_t kMaxNoticeBytes = 4096;
inline constexpr std::size_t kMaxReasonBytes = 1024;

struct CheckpointNotice {
  std::uint64_t seq = 0;
  std::string reason;
  std::int64_t deadline_unix_ms = 0;  // the program stops at this time at the latest (stop)
  bool stop = false;                  // false: a checkpoint without a stop
};

struct NodeSpec;
// Whether a node's tasks act on notices themselves (a notice_signal, or a
// replay node), so that a stop after a notice lets them run to its deadline.
bool hears_notices(const NodeSpec& node);

std::string format_notice(const CheckpointNotice& notice);
std::optional<CheckpointNotice> parse_notice(std::string_view text);

}  // namespace slipway::core
