// `slipway logs [PROGRAM] [NODE.REPLICA] [-f]`: a task's log (or every
// task's, lines prefixed NODE.REPLICA) from a run directory, without knowing
// its path; -f follows it until the run ends, as `tail -f` would.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "commands.hpp"
#include "option_checks.hpp"
#include "slipway/base/write_all.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/run_history.hpp"

namespace slipway::cli {
namespace {

namespace fs = std::filesystem;

struct LogsOptions {
  std::string first;   // PROGRAM, run directory, or NODE.REPLICA
  std::string second;  // NODE.REPLICA
  std::string run_root;
  bool follow = false;
};

constexpr std::size_t kMaxLine = 64 * 1024;  // a longer line is cut into pieces

// NODE.REPLICA: a node's name and a number.
bool looks_like_task(const std::string& text) {
  const std::size_t dot = text.rfind('.');
  if (dot == std::string::npos || dot + 1 == text.size() || !launch::is_plain_name(text.substr(0, dot))) {
    return false;
  }
  return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(dot) + 1, text.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

// One log being read: where it is, how far, and an unfinished line.
class LogReader {
 public:
  LogReader(std::string task, std::string path, bool prefixed)
      : task_(std::move(task)), path_(std::move(path)), prefixed_(prefixed) {}

  const std::string& task() const { return task_; }

  // Copies what was appended since the last call to stdout; true when
  // anything was. A log that was replaced or cut is read again from its start.
  // Only a regular file is read (a FIFO or a link to a device there is
  // skipped: never waited on, never read without end).
  bool pump() {
    struct stat now {};
    if (::lstat(path_.c_str(), &now) != 0 || !S_ISREG(now.st_mode)) return false;
    if (!fd_ || now.st_ino != inode_ || now.st_size < offset_) {
      fd_ = base::UniqueFd(::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW));
      struct stat opened {};
      if (fd_ && (::fstat(fd_.get(), &opened) != 0 || !S_ISREG(opened.st_mode))) fd_.reset();
      if (!fd_) return false;
      inode_ = opened.st_ino;
      offset_ = 0;
    }
    bool any = false;
    char buffer[65536];
    for (int rounds = 0; rounds < 64; ++rounds) {  // at most 4 MiB per call: others get their turn
      const ssize_t n = ::pread(fd_.get(), buffer, sizeof buffer, offset_);
      if (n <= 0) break;
      offset_ += n;
      any = true;
      emit(std::string_view(buffer, static_cast<std::size_t>(n)));
    }
    return any;
  }

  // The last line, when it has no newline yet.
  void finish() {
    if (!partial_.empty()) emit_line(partial_ + "\n");
    partial_.clear();
  }

 private:
  void emit(std::string_view data) {
    if (!prefixed_) {
      base::write_all(STDOUT_FILENO, std::string(data));
      return;
    }
    std::size_t start = 0;
    while (start < data.size()) {
      const std::size_t newline = data.find('\n', start);
      if (newline == std::string_view::npos) {
        partial_.append(data.substr(start));
        if (partial_.size() >= kMaxLine) {
          emit_line(partial_ + "\n");
          partial_.clear();
        }
        return;
      }
      partial_.append(data.substr(start, newline + 1 - start));
      emit_line(partial_);
      partial_.clear();
      start = newline + 1;
    }
  }
  void emit_line(const std::string& line) { base::write_all(STDOUT_FILENO, task_ + ": " + line); }

  std::string task_;
  std::string path_;
  bool prefixed_;
  base::UniqueFd fd_;
  ino_t inode_ = 0;
  off_t offset_ = 0;
  std::string partial_;
};

// The run and task the arguments name; throws std::runtime_error saying
// what was not found.
std::pair<std::string, std::string> resolve(const LogsOptions& o, const std::string& root) {
  std::string error;
  if (!o.second.empty()) {
    auto dir = launch::find_run_directory(root, o.first, &error);
    if (!dir && launch::is_plain_name(o.first) && fs::is_directory(root + "/" + o.first)) {
      dir = root + "/" + o.first;
    }
    if (!dir) throw std::runtime_error(error);
    if (!looks_like_task(o.second)) {
      throw std::runtime_error("'" + o.second + "' is not a task; write NODE.REPLICA, e.g. worker.0");
    }
    return {*dir, o.second};
  }
  if (!o.first.empty()) {
    if (auto dir = launch::find_run_directory(root, o.first, &error)) return {*dir, ""};
    if (launch::is_plain_name(o.first) && fs::is_directory(root + "/" + o.first) &&
        !fs::is_symlink(root + "/" + o.first)) {
      return {fs::canonical(root + "/" + o.first).string(), ""};
    }
    if (!looks_like_task(o.first)) throw std::runtime_error(error);
    auto dir = launch::find_run_directory(root, "", &error);
    if (!dir) throw std::runtime_error(error);
    return {*dir, o.first};
  }
  auto dir = launch::find_run_directory(root, "", &error);
  if (!dir) throw std::runtime_error(error);
  return {*dir, ""};
}

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 20; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 20) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out.empty() ? "none" : out;
}

int run_logs(const LogsOptions& o) {
  const std::string root = o.run_root.empty() ? launch::default_run_root() : o.run_root;
  std::string run, task;
  try {
    std::tie(run, task) = resolve(o, root);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "slipway logs: %s\n", e.what());
    return 1;
  }
  std::vector<std::unique_ptr<LogReader>> readers;
  auto add_new_logs = [&] {
    for (const std::string& name : launch::task_log_names(run)) {
      bool known = false;
      for (const auto& r : readers) known = known || r->task() == name;
      if (!known) readers.push_back(std::make_unique<LogReader>(name, launch::task_log_path(run, name), true));
    }
  };
  if (!task.empty()) {
    const std::string path = launch::task_log_path(run, task);
    std::error_code ec;
    if (!o.follow && !fs::is_regular_file(fs::symlink_status(path, ec))) {  // a FIFO or link: no log
      std::fprintf(stderr,
                   "slipway logs: no log for %s in %s (a task that printed nothing and succeeded "
                   "leaves none); tasks with logs: %s\n",
                   task.c_str(), run.c_str(), listed(launch::task_log_names(run)).c_str());
      return 1;
    }
    readers.push_back(std::make_unique<LogReader>(task, path, false));
  } else {
    add_new_logs();
  }
  for (auto& r : readers) {
    while (r->pump()) {
    }
  }
  if (o.follow) {
    // Until the run has ended and nothing more came in the round after.
    auto next_check = std::chrono::steady_clock::now();
    bool ended = false;
    for (;;) {
      if (task.empty()) add_new_logs();
      bool any = false;
      for (auto& r : readers) any = r->pump() || any;
      if (any) continue;
      if (ended) break;
      if (std::chrono::steady_clock::now() >= next_check) {
        ended = launch::run_has_ended(run);
        next_check = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        if (ended) continue;  // one more round for what came last
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  for (auto& r : readers) r->finish();
  if (task.empty() && readers.empty()) {
    std::fprintf(stderr, "slipway logs: %s has no task logs yet\n", run.c_str());
  }
  return 0;
}

}  // namespace

void register_logs(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<LogsOptions>();
  auto* cmd = app.add_subcommand("logs", "Print (or follow) the log of a task of a run");
  cmd->add_option("PROGRAM", o->first,
                  "Program name (its newest run), run directory or run name (default: the newest\n"
                  "run); a NODE.REPLICA here means that task of the newest run");
  cmd->add_option("NODE.REPLICA", o->second, "The task, e.g. worker.0 (default: every task)");
  cmd->add_flag("-f,--follow", o->follow, "Keep printing what is appended until the run ends");
  add_run_root_option(cmd, o->run_root);
  cmd->footer(
      "One task's log is printed as it is; every task's log is printed one after another,\n"
      "each line prefixed NODE.REPLICA: as `slipway run` shows it (with -f, interleaved as\n"
      "they arrive). A log holds every attempt of its task. Runs: `slipway runs`.\n"
      "Exit status: 0 printed, 1 no such run or log.");
  cmd->callback([o, &ctx] { ctx.exit_code = run_logs(*o); });
}

}  // namespace slipway::cli
