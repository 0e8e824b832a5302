// NoticeWatch: polls a task's checkpoint notice file (notice_watch.hpp).
#include "notice_watch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include "slipway/base/unique_fd.hpp"

namespace slipway::replay {

namespace {

// The notice in `file`, or nothing with `problem` saying why.
std::optional<core::CheckpointNotice> read_notice(const std::filesystem::path& file, std::string& problem) {
  base::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd) {
    problem = errno == ELOOP ? std::string("it is a symbolic link (the task agent writes a regular file)")
                             : std::string("cannot open it: ") + std::strerror(errno);
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    problem = "it is not a regular file";
    return std::nullopt;
  }
  std::string text(core::kMaxNoticeBytes + 1, '\0');
  std::size_t size = 0;
  while (size < text.size()) {
    const ssize_t got = ::read(fd.get(), text.data() + size, text.size() - size);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      problem = std::string("cannot read it: ") + std::strerror(errno);
      return std::nullopt;
    }
    if (got == 0) break;
    size += static_cast<std::size_t>(got);
  }
  if (size > core::kMaxNoticeBytes) {
    problem = "it is larger than " + std::to_string(core::kMaxNoticeBytes) + " bytes";
    return std::nullopt;
  }
  text.resize(size);
  auto notice = core::parse_notice(text);
  if (!notice) problem = R"(it is not a checkpoint notice ({"seq","reason","deadline_unix_ms","stop"}))";
  return notice;
}

}  // namespace

NoticeWatch::NoticeWatch(std::filesystem::path file, OnNotice on_notice, Log log, std::chrono::milliseconds every)
    : file_(std::move(file)),
      on_notice_(std::move(on_notice)),
      log_(std::move(log)),
      thread_([this] { look(); }, every) {}

NoticeWatch::~NoticeWatch() = default;

void NoticeWatch::look() {
  struct stat st {};
  if (::lstat(file_.c_str(), &st) != 0) {
    seen_.clear();  // absent until the first notice
    return;
  }
  const std::string version = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
                              std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
                              std::to_string(st.st_mtim.tv_nsec);
  if (version == seen_) return;
  seen_ = version;
  std::string problem;
  const auto notice = read_notice(file_, problem);
  if (!notice) {
    log_("ignoring the checkpoint notice " + file_.string() + ": " + problem);
    return;
  }
  if (notice->seq == last_seq_) return;  // the same notice, written again
  last_seq_ = notice->seq;
  on_notice_(*notice);
}

}  // namespace slipway::replay
