// RUN/outcome.json: recording how a run ended, writing and reading the file,
// and finding a failed task's traceback in its log (run_outcome.hpp).
#include "slipway/launch/run_outcome.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "slipway/base/replace_file.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/run_file.hpp"

namespace slipway::launch {
namespace {

using nlohmann::json;

constexpr std::string_view kTracebackStart = "Traceback (most recent call last):";
// At most this many tasks of the failed unit have their logs searched for
// a traceback (each search reads up to kMaxLogTail bytes).
constexpr std::size_t kMaxTracebackSearches = 16;

std::string bounded(std::string text, std::size_t limit = kMaxText) {
  if (text.size() > limit) text.resize(limit);
  return text;
}

OutcomeCause cause_of(const UnitExit& exit, bool lost) {
  OutcomeCause cause;
  if (lost) {
    cause.kind = "lost";
  } else if (!exit.never_started.empty()) {
    cause.kind = "never_started";
  } else {
    cause.kind = exit.signaled ? "signal" : "exit";
  }
  cause.code = exit.code;
  cause.description = bounded((lost ? "lost: " : "") + exit.describe());
  return cause;
}

// The last occurrence of `needle` at the start of a line of `text`, at or
// after `from`.
std::size_t last_line_starting(std::string_view text, std::string_view needle, std::size_t from) {
  std::size_t at = text.size();
  while (at > from) {
    at = text.rfind(needle, at - 1);
    if (at == std::string_view::npos || at < from) return std::string_view::npos;
    if (at == 0 || text[at - 1] == '\n') return at;
  }
  return std::string_view::npos;
}

// The last `limit` bytes of a regular file (never through a link, never
// blocking on what is there); nothing when it is absent or no regular file.
std::optional<std::string> file_tail(const std::string& path, std::size_t limit) {
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC));
  struct stat st{};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const auto size = static_cast<std::size_t>(st.st_size);
  const std::size_t start = size > limit ? size - limit : 0;
  std::string text(size - start, '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::pread(fd.get(), text.data() + got, text.size() - got, static_cast<off_t>(start + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

bool is_regular_file(const std::string& path) {
  struct stat st{};
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

nlohmann::ordered_json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
}

std::string string_at(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? bounded(it->get<std::string>()) : std::string();
}

int int_at(const json& object, const char* key, int otherwise = 0) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : otherwise;
}

}  // namespace

void OutcomeRecorder::unit_ended(std::size_t unit, int attempt, const UnitExit& exit, bool lost) {
  unit_ends_[unit] = {attempt, cause_of(exit, lost)};
}

void OutcomeRecorder::not_started(std::size_t unit, int attempt, const std::string& why) {
  unit_ends_[unit] = {attempt, {"start_failed", 127, bounded("the launcher could not start it: " + why)}};
}

void OutcomeRecorder::task_ended(const MemberEnded& event) {
  task_ends_[event.task] = {event.attempt, event.failed, event.exit_status, ++heard_};
}

std::optional<std::string> OutcomeRecorder::failed_task(const core::Plan& plan, const LaunchUnit& unit,
                                                        int task_attempt) const {
  std::optional<std::string> first;
  std::uint64_t first_order = 0;
  for (std::uint32_t t : unit.tasks) {
    const std::string name = plan.tasks[t].name();
    const auto end = task_ends_.find(name);
    if (end == task_ends_.end() || static_cast<int>(end->second.attempt) != task_attempt) continue;
    if (!end->second.vanished && end->second.exit_status == 0) continue;
    if (!first || end->second.order < first_order) {
      first = name;
      first_order = end->second.order;
    }
  }
  return first;
}

FailedUnit OutcomeRecorder::failed_unit(const core::Plan& plan, std::size_t u, const LaunchUnit& unit, int attempt,
                                         int task_attempt, int epoch, const RunDirectory& run_dir) const {
  FailedUnit failed;
  failed.name = bounded(unit.name);
  failed.attempt = task_attempt;
  failed.epoch = epoch;
  if (auto end = unit_ends_.find(u); end != unit_ends_.end() && end->second.attempt == attempt) {
    failed.cause = end->second.cause;
  } else {
    failed.cause.description = "no end of it was recorded";
  }
  const std::optional<std::string> failed_name = failed_task(plan, unit, task_attempt);
  for (std::uint32_t t : unit.tasks) {
    if (failed.tasks.size() == kMaxListedTasks) {
      ++failed.tasks_omitted;
      continue;
    }
    const core::Task& task = plan.tasks[t];
    OutcomeTask listed;
    listed.node = task.node;
    listed.replica = task.replica;
    const std::string log = run_dir.logs_path() + "/" + task.name() + ".log";
    if (is_regular_file(log)) listed.log = bounded(log);
    const auto end = task_ends_.find(task.name());
    if (end != task_ends_.end() && static_cast<int>(end->second.attempt) == task_attempt) {
      listed.vanished = end->second.vanished;
      if (!listed.vanished) listed.exit_status = end->second.exit_status;
    }
    listed.failed = failed_name && *failed_name == task.name();
    failed.tasks.push_back(std::move(listed));
  }
  if (!failed_name && failed.tasks.size() == 1) {
    // A task the launcher ran itself reports no status of its own: its
    // unit's is its.
    OutcomeTask& only = failed.tasks.front();
    only.failed = true;
    if (!only.exit_status && !only.vanished && (failed.cause.kind == "exit" || failed.cause.kind == "signal")) {
      only.exit_status = failed.cause.kind == "exit" ? failed.cause.code : 128 + failed.cause.code;
    }
  }
  // The failed task's traceback; when no task is known to have failed,
  // the first tasks' (kMaxTracebackSearches of them).
  const bool known = std::any_of(failed.tasks.begin(), failed.tasks.end(),
                                 [](const OutcomeTask& task) { return task.failed; });
  std::size_t searched = 0;
  for (OutcomeTask& task : failed.tasks) {
    if (known ? !task.failed : searched == kMaxTracebackSearches) continue;
    ++searched;
    task.traceback = write_traceback(run_dir, task.node + "." + std::to_string(task.replica), task_attempt);
  }
  return failed;
}

RunOutcome OutcomeRecorder::finish(const core::Plan& plan, const std::vector<LaunchUnit>& units,
                                   const Supervisor& supervisor, int attempt_base, int epoch_base,
                                   int exit_code, const std::string& message,
                                   const RunDirectory& run_dir) const {
  RunOutcome outcome;
  outcome.program = *plan.program.name;
  outcome.run_directory = run_dir.path();
  outcome.exit = exit_code;
  outcome.message = bounded(message, kMaxMessage);
  for (std::size_t u = 0; u < units.size() && u < supervisor.size(); ++u) {
    const auto view = supervisor.unit(u);
    ++outcome.units[to_string(view.state)];
    if (view.state != UnitState::Failed || outcome.failed_unit) continue;
    outcome.failed_unit = failed_unit(plan, u, units[u], view.attempt, view.attempt + attempt_base,
                                      view.epoch + (units[u].world >= 0 ? epoch_base : 0), run_dir);
  }
  if (exit_code == 0) {
    outcome.result = "succeeded";
  } else if (outcome.failed_unit || exit_code == 1) {
    outcome.result = "failed";
  } else {
    outcome.result = "stopped";
  }
  return outcome;
}

std::string outcome_json(const RunOutcome& outcome) {
  using ordered = nlohmann::ordered_json;  // keys in the order docs/runs.md shows them
  ordered j = {{"schema", kOutcomeSchema},
               {"program", bounded(outcome.program)},
               {"run_directory", bounded(outcome.run_directory)},
               {"result", outcome.result},
               {"success", outcome.success()},
               {"exit", outcome.exit},
               {"message", bounded(outcome.message, kMaxMessage)},
               {"failed_unit", nullptr},
               {"units", outcome.units}};
  if (const auto& failed = outcome.failed_unit) {
    ordered tasks = ordered::array();
    std::size_t omitted = failed->tasks_omitted;
    for (const OutcomeTask& task : failed->tasks) {
      if (tasks.size() == kMaxListedTasks) {
        ++omitted;
        continue;
      }
      tasks.push_back({{"name", bounded(task.node) + "." + std::to_string(task.replica)},
                       {"node", bounded(task.node)},
                       {"replica", task.replica},
                       {"exit_status", task.exit_status ? ordered(*task.exit_status) : ordered(nullptr)},
                       {"vanished", task.vanished},
                       {"failed", task.failed},
                       {"log", text_or_null(bounded(task.log))},
                       {"traceback", text_or_null(bounded(task.traceback))}});
    }
    j["failed_unit"] = {{"name", bounded(failed->name)},
                        {"attempt", failed->attempt},
                        {"epoch", failed->epoch},
                        {"cause",
                         {{"kind", failed->cause.kind},
                          {"code", failed->cause.code},
                          {"description", bounded(failed->cause.description)}}},
                        {"tasks", std::move(tasks)},
                        {"tasks_omitted", omitted}};
  }
  return j.dump(2, ' ', false, ordered::error_handler_t::replace) + "\n";
}

void write_outcome(const std::string& run_directory, const RunOutcome& outcome) {
  if (std::string error = base::replace_file(run_directory + "/outcome.json", outcome_json(outcome), 0600);
      !error.empty()) {
    throw std::runtime_error(error);
  }
}

void write_error_outcome(const std::string& run_directory, const std::string& program,
                         const std::string& message) noexcept {
  if (run_directory.empty()) return;
  try {
    RunOutcome outcome;
    outcome.program = bounded(program);
    outcome.run_directory = bounded(run_directory);
    outcome.result = "error";
    outcome.exit = 1;
    outcome.message = bounded(message, kMaxMessage);
    write_outcome(run_directory, outcome);
  } catch (const std::exception&) {
  }
}

std::optional<RunOutcome> read_outcome(const std::string& run_directory) {
  const auto text = read_run_file(run_directory + "/outcome.json", kMaxOutcomeFile);
  if (!text) return std::nullopt;
  const json j = json::parse(*text, nullptr, false);
  if (!j.is_object() || int_at(j, "schema", -1) != kOutcomeSchema) return std::nullopt;
  const auto exit = j.find("exit");
  if (exit == j.end() || !exit->is_number_integer()) return std::nullopt;
  RunOutcome outcome;
  outcome.program = string_at(j, "program");
  outcome.run_directory = string_at(j, "run_directory");
  outcome.result = string_at(j, "result");
  outcome.exit = exit->get<int>();
  outcome.message = string_at(j, "message");
  if (const auto units = j.find("units"); units != j.end() && units->is_object()) {
    for (const auto& [state, count] : units->items()) {
      if (count.is_number_unsigned()) outcome.units[bounded(state)] = count.get<std::size_t>();
    }
  }
  const auto failed = j.find("failed_unit");
  if (failed == j.end() || !failed->is_object()) return outcome;
  FailedUnit unit;
  unit.name = string_at(*failed, "name");
  unit.attempt = int_at(*failed, "attempt");
  unit.epoch = int_at(*failed, "epoch");
  if (const auto cause = failed->find("cause"); cause != failed->end() && cause->is_object()) {
    unit.cause = {string_at(*cause, "kind"), int_at(*cause, "code"), string_at(*cause, "description")};
  }
  if (const auto tasks = failed->find("tasks"); tasks != failed->end() && tasks->is_array()) {
    for (const json& task : *tasks) {
      if (!task.is_object() || unit.tasks.size() == kMaxListedTasks) continue;
      OutcomeTask listed;
      listed.node = string_at(task, "node");
      listed.replica = static_cast<std::uint32_t>(std::max(0, int_at(task, "replica")));
      if (const auto status = task.find("exit_status"); status != task.end() && status->is_number_integer()) {
        listed.exit_status = status->get<int>();
      }
      listed.vanished = task.value("vanished", false);
      listed.failed = task.value("failed", false);
      listed.log = string_at(task, "log");
      listed.traceback = string_at(task, "traceback");
      unit.tasks.push_back(std::move(listed));
    }
  }
  unit.tasks_omitted = static_cast<std::size_t>(std::max(0, int_at(*failed, "tasks_omitted")));
  outcome.failed_unit = std::move(unit);
  return outcome;
}

std::string failed_task_of(const RunOutcome& outcome) {
  if (!outcome.failed_unit) return {};
  for (const OutcomeTask& task : outcome.failed_unit->tasks) {
    if (task.failed) return task.node + "." + std::to_string(task.replica);
  }
  return outcome.failed_unit->name;
}

std::optional<std::string> traceback_in_log(std::string_view log, const std::string& task, int attempt) {
  const std::string header = "=== slipway: " + task + " attempt ";
  std::size_t from = 0;
  if (const std::size_t at = last_line_starting(log, header, 0); at != std::string_view::npos) {
    const std::string number = std::to_string(attempt);
    const std::string_view rest = log.substr(at + header.size());
    if (rest.substr(0, number.size()) != number || rest.size() == number.size() ||
        (rest[number.size()] != ' ' && rest[number.size()] != '\n')) {
      return std::nullopt;  // a later (or other) attempt wrote last
    }
    from = at;
  }
  const std::size_t start = last_line_starting(log, kTracebackStart, from);
  if (start == std::string_view::npos) return std::nullopt;
  std::string_view traceback = log.substr(start);
  if (traceback.size() <= kMaxTraceback) return std::string(traceback);
  const std::size_t left_out = traceback.size() - kMaxTraceback;
  return std::string(kTracebackStart) + "\n[slipway: " + std::to_string(left_out) +
         " bytes of the traceback left out]\n" + std::string(traceback.substr(left_out));
}

std::string write_traceback(const RunDirectory& run_dir, const std::string& task, int attempt) {
  const auto tail = file_tail(run_dir.logs_path() + "/" + task + ".log", kMaxLogTail);
  if (!tail) return {};
  const auto traceback = traceback_in_log(*tail, task, attempt);
  if (!traceback) return {};
  const std::string name = "logs/" + task + ".traceback";
  try {
    run_dir.write_file(name, *traceback);
  } catch (const std::exception&) {
    return {};  // a full disk: the outcome names no traceback file
  }
  return run_dir.path() + "/" + name;
}

}  // namespace slipway::launch
