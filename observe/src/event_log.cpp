// Writing and reading RUN/events.jsonl (event_log.hpp).
#include "slipway/observe/event_log.hpp"

#include "slipway/observe/file_tail.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace slipway::observe {
namespace {

std::int64_t now_unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

void parse_lines(const std::string& text, std::uint64_t after, std::vector<Event>& out) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) break;  // a line still being written
    if (auto e = parse_event_line(std::string_view(text).substr(start, end - start))) {
      if (e->seq > after) out.push_back(std::move(*e));
    }
    start = end + 1;
  }
}

}  // namespace

std::string events_path(const std::string& run_directory) { return run_directory + "/events.jsonl"; }

EventLog::EventLog(std::string path, std::string program, std::uint64_t max_bytes, std::size_t kept_recent)
    : path_(std::move(path)), program_(std::move(program)), max_bytes_(max_bytes), kept_recent_(kept_recent) {
  // A resumed run goes on from its newest event.
  for (const std::string& file : {path_, path_ + ".1"}) {
    std::vector<Event> old;
    parse_lines(read_file_tail(file, 64 * 1024, true), 0, old);
    if (!old.empty()) {
      seq_ = old.back().seq;
      break;
    }
  }
  open_file();
}

EventLog::~EventLog() {
  if (fd_ >= 0) ::close(fd_);
}

void EventLog::open_file() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  struct stat st{};
  size_ = (fd_ >= 0 && ::fstat(fd_, &st) == 0) ? static_cast<std::uint64_t>(st.st_size) : 0;
  if (fd_ < 0 && !warned_) {
    warned_ = true;
    std::fprintf(stderr, "slipway: warning: the event record %s cannot be written: %s\n", path_.c_str(),
                 std::strerror(errno));
  }
}

const Event& EventLog::append(Event event) {
  event.seq = ++seq_;
  if (event.unix_ms == 0) event.unix_ms = now_unix_ms();
  if (event.program.empty()) event.program = program_;
  const std::string line = to_json_line(event);
  if (fd_ >= 0 && size_ + line.size() > max_bytes_) {
    ::rename(path_.c_str(), (path_ + ".1").c_str());
    open_file();
  }
  if (fd_ >= 0) {
    const ssize_t n = ::write(fd_, line.data(), line.size());
    if (n == static_cast<ssize_t>(line.size())) {
      size_ += line.size();
    } else if (!warned_) {
      warned_ = true;
      std::fprintf(stderr, "slipway: warning: the event record %s could not be written: %s\n", path_.c_str(),
                   n < 0 ? std::strerror(errno) : "short write");
    }
  }
  recent_.push_back(std::move(event));
  while (recent_.size() > kept_recent_) recent_.pop_front();
  return recent_.back();
}

std::vector<Event> read_events(const std::string& run_directory, std::uint64_t after, std::size_t limit,
                               std::uint64_t tail_bytes) {
  const std::string path = events_path(run_directory);
  std::vector<Event> events;
  parse_lines(read_file_tail(path, tail_bytes, true), after, events);
  // Not back far enough: the rotated file may hold the older ones.
  if (events.empty() || events.front().seq > after + 1) {
    std::vector<Event> older;
    parse_lines(read_file_tail(path + ".1", tail_bytes, true), after, older);
    const std::uint64_t first = events.empty() ? UINT64_MAX : events.front().seq;
    std::erase_if(older, [first](const Event& e) { return e.seq >= first; });
    events.insert(events.begin(), std::make_move_iterator(older.begin()), std::make_move_iterator(older.end()));
  }
  if (events.size() > limit) events.erase(events.begin(), events.end() - static_cast<std::ptrdiff_t>(limit));
  return events;
}

}  // namespace slipway::observe
