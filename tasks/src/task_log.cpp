// TaskLog: a task's log file, bounded, with write failures reported (see
// task_log.hpp).
#include "slipway/core/contract.hpp"
#include "slipway/tasks/task_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "slipway/base/terminal_stream.hpp"

namespace slipway::tasks {
namespace {

// Below this a bound would leave no room for the continuation header.
constexpr std::uint64_t kSmallestLimit = 4096;

std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::optional<std::uint64_t> log_limit_from_environment() {
  const char* text = std::getenv(core::env::kLogLimit);
  if (!text || !*text) return kDefaultLogLimit;
  std::string_view value(text);
  std::uint64_t number = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc() || end == value.data()) return std::nullopt;
  std::string_view suffix(end, static_cast<std::size_t>(value.data() + value.size() - end));
  int shift = 0;
  if (suffix == "K" || suffix == "k") shift = 10;
  else if (suffix == "M" || suffix == "m") shift = 20;
  else if (suffix == "G" || suffix == "g") shift = 30;
  else if (!suffix.empty()) return std::nullopt;
  if (number > (std::uint64_t{1} << 50) >> shift) return std::nullopt;  // beyond a petabyte
  return number << shift;
}

TaskLog::TaskLog(std::string task_name, std::string path, std::string header, std::uint64_t limit)
    : name_(std::move(task_name)),
      path_(std::move(path)),
      header_(std::move(header)),
      limit_(limit == 0 ? 0 : std::max(limit, kSmallestLimit)) {}

void TaskLog::report(const std::string& what, int error) {
  if (reported_) return;
  reported_ = true;
  base::terminal_stderr().write(name_ + ": slipway: " + what + ": " + std::strerror(error) +
                          "; its output reaches only the terminal until that works again (the "
                          "log will mark what it lost)\n");
}

bool TaskLog::open_file(const std::string& first_line) {
  tried_ = true;
  fd_.reset(::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd_) {
    report("cannot open its log " + path_, errno);
    return false;
  }
  struct stat st{};
  size_ = ::fstat(fd_.get(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  write_counted(first_line);
  return true;
}

void TaskLog::keep() {
  if (!tried_) open_file(header_);
}

void TaskLog::write_counted(std::string_view bytes) {
  if (!fd_ || bytes.empty()) return;
  if (lost_ > 0) {
    std::string gap = "\n[slipway: " + std::to_string(lost_) + " bytes of output lost here: " +
                      lost_reason_ + "]\n";
    ssize_t n = ::write(fd_.get(), gap.data(), gap.size());
    if (n != static_cast<ssize_t>(gap.size())) {
      if (n > 0) size_ += static_cast<std::uint64_t>(n);
      lost_ += bytes.size();
      return;
    }
    size_ += gap.size();
    lost_ = 0;
  }
  while (!bytes.empty()) {
    ssize_t n = ::write(fd_.get(), bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = n < 0 ? errno : ENOSPC;
      lost_ += bytes.size();
      lost_reason_ = std::strerror(error);
      report("cannot write to its log " + path_, error);
      return;
    }
    size_ += static_cast<std::uint64_t>(n);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void TaskLog::rotate() {
  const std::string older = path_ + ".1";
  if (::rename(path_.c_str(), older.c_str()) != 0) {
    report("cannot rotate its log " + path_ + " (it grows past SLIPWAY_LOG_LIMIT now)", errno);
    limit_ = 0;
    return;
  }
  fd_.reset(::open(path_.c_str(),
                   O_WRONLY | O_CREAT | O_APPEND | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd_) {
    report("cannot open its log " + path_, errno);
    return;
  }
  size_ = 0;
  write_counted("=== slipway: " + name_ + " log continued: the earlier part is in " +
                base_name(older) + " ===\n");
}

void TaskLog::append(std::string_view bytes) {
  if (!tried_) open_file(header_);
  bool fresh = false;  // the file holds no output yet (just rotated)
  while (fd_ && !bytes.empty()) {
    if (limit_ == 0 || size_ + bytes.size() <= limit_) {
      write_counted(bytes);
      return;
    }
    std::size_t room = static_cast<std::size_t>(limit_ > size_ ? limit_ - size_ : 0);
    std::size_t cut = bytes.substr(0, room).rfind('\n');
    cut = cut == std::string_view::npos ? 0 : cut + 1;
    if (cut == 0 && fresh) cut = room;  // one line longer than the bound: cut it
    write_counted(bytes.substr(0, cut));
    bytes.remove_prefix(cut);
    if (bytes.empty()) return;
    rotate();
    fresh = true;
  }
}

}  // namespace slipway::tasks
