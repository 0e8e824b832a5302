// RUN/events.jsonl: the run's event record, written by the launcher
// (docs/observe.md).
//
// Contract: append() gives the event the next seq and the current time
// when unset, writes it as one line (one write(2), O_APPEND, mode 0600) and
// keeps it among the newest kept_recent events. The file is bounded: a
// line that would take it past max_bytes first moves it to events.jsonl.1
// (the one older file kept, replaced). A resumed run's log continues the
// seq of the newest line found. A failed write is reported once on
// stderr and never throws: the program runs on without its record.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "slipway/observe/event_record.hpp"

namespace slipway::observe {

inline constexpr std::uint64_t kDefaultEventLogBytes = 16u << 20;

// RUN/events.jsonl
std::string events_path(const std::string& run_directory);

class EventLog {
 public:
  EventLog(std::string path, std::string program, std::uint64_t max_bytes = kDefaultEventLogBytes,
           std::size_t kept_recent = 64);
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  const Event& append(Event event);
  // The newest events, oldest first.
  const std::deque<Event>& recent() const { return recent_; }
  std::uint64_t last_seq() const { return seq_; }

 private:
  void open_file();
  std::string path_;
  std::string program_;
  std::uint64_t max_bytes_;
  std::size_t kept_recent_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint64_t seq_ = 0;
  bool warned_ = false;
  std::deque<Event> recent_;
};

// The events of a run with seq > after, oldest first, read from the newest
// tail_bytes of events.jsonl (and .1 when that is not enough), at most
// `limit` (the newest of them). Lines that do not parse are skipped.
std::vector<Event> read_events(const std::string& run_directory, std::uint64_t after,
                               std::size_t limit, std::uint64_t tail_bytes = 1u << 20);

}  // namespace slipway::observe
