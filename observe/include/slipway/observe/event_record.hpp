// One event of a program run (docs/observe.md): a start, an exit, a
// restart, a world's epoch, a resize, a satellite job, a checkpoint notice,
// a resume. RUN/events.jsonl holds one per line as JSON.
//
// Contract: to_json_line writes one JSON object and a newline; fields that
// do not apply (node, replica, attempt, epoch, host of a program-wide event)
// are left out. parse_event_line reads what to_json_line wrote and refuses
// anything else (nothing, not an error). format_event is the readable line
// of `slipway events`. Texts are bounded: a cause longer than
// kMaxCauseBytes is cut.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace slipway::observe {

inline constexpr std::size_t kMaxCauseBytes = 1024;
inline constexpr std::size_t kMaxEventLineBytes = 4096;

struct Event {
  std::uint64_t seq = 0;      // 1, 2, ... within a run (across resumes)
  std::int64_t unix_ms = 0;
  std::string program;
  std::string kind;           // program_start, resume, start, exit, restart, epoch, resize,
                              // satellite_request/_grant/_release/_abandon, notice, stop, program_end
  std::string node;           // empty: program-wide
  std::optional<std::uint32_t> replica;
  std::optional<int> attempt;
  std::optional<int> epoch;
  std::string host;
  std::string cause;
};

nlohmann::json to_json(const Event& event);
std::string to_json_line(const Event& event);
std::optional<Event> event_from_json(const nlohmann::json& object);
std::optional<Event> parse_event_line(std::string_view line);

// "2026-11-28T12:00:00.123Z"
std::string utc_time(std::int64_t unix_ms);
// "12:00:00.123 exit      actor.3   attempt 1 epoch 2 node2: signal 9 (SIGKILL)"
std::string format_event(const Event& event, bool with_date);

}  // namespace slipway::observe
