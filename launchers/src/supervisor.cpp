// Supervisor: decides relaunches, stops and the program's end (see header).
#include "slipway/launch/supervisor.hpp"

#include <signal.h>

#include <algorithm>
#include <cstring>

namespace slipway::launch {

std::string TaskExit::describe() const {
  if (!never_started.empty()) return "never started: " + never_started;
  if (!signaled) return "exited with status " + std::to_string(code);
  const char* name = strsignal(code);
  return "killed by signal " + std::to_string(code) + " (" + (name ? name : "unknown") + ")";
}

const char* to_string(TaskState state) {
  switch (state) {
    case TaskState::Pending: return "pending";
    case TaskState::Running: return "running";
    case TaskState::Backoff: return "restarting";
    case TaskState::Succeeded: return "done";
    case TaskState::Failed: return "failed";
    case TaskState::Stopped: return "stopped";
  }
  return "unknown";
}

Supervisor::Supervisor(std::vector<SupervisedTaskSpec> tasks, SupervisorOptions options)
    : options_(options) {
  tasks_.reserve(tasks.size());
  for (auto& spec : tasks) tasks_.push_back(Task{std::move(spec)});
}

Supervisor::TaskView Supervisor::task(std::size_t index) const {
  const Task& t = tasks_.at(index);
  return TaskView{t.spec, t.state, t.attempt};
}

std::vector<Action> Supervisor::start(Clock::time_point) {
  std::vector<Action> out;
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    tasks_[i].state = TaskState::Running;
    out.push_back(Action{Action::Kind::Launch, i, 0, 0, 0, {}});
  }
  maybe_finish(out);
  return out;
}

std::vector<Action> Supervisor::task_exited(std::size_t index, TaskExit exit,
                                            Clock::time_point now) {
  std::vector<Action> out;
  Task& t = tasks_.at(index);
  if (t.state != TaskState::Running) return out;
  if (phase_ != Phase::Running) {
    // Exits while stopping are expected; a failure before the stop counts.
    t.state = exit.success() ? TaskState::Succeeded : TaskState::Stopped;
    maybe_finish(out);
    return out;
  }
  if (exit.success()) {
    t.state = TaskState::Succeeded;
    bool all_done = std::all_of(tasks_.begin(), tasks_.end(), [](const Task& x) {
      return x.spec.daemon || x.state == TaskState::Succeeded;
    });
    if (all_done) {
      begin_stop(Phase::StoppingDaemons, 0, "all tasks finished", now, out);
    }
    return out;
  }
  if (t.attempt < t.spec.max_retries) {
    t.state = TaskState::Backoff;
    auto backoff = options_.backoff_initial * (1LL << std::min(t.attempt, 20));
    t.restart_at = now + std::min<std::chrono::milliseconds>(backoff, options_.backoff_max);
    return out;
  }
  t.state = TaskState::Failed;
  std::string budget = t.spec.max_retries == 0
                           ? "no retries allowed (max_retries = 0)"
                           : "retries exhausted (max_retries = " +
                                 std::to_string(t.spec.max_retries) + ")";
  begin_stop(Phase::Stopping, 1,
             "task " + t.spec.name + " " + exit.describe() + " on attempt " +
                 std::to_string(t.attempt) + "; " + budget,
             now, out);
  return out;
}

std::vector<Action> Supervisor::stop_requested(const std::string& reason, int exit_code,
                                               Clock::time_point now) {
  std::vector<Action> out;
  if (phase_ == Phase::Stopping || phase_ == Phase::Finished) return out;
  begin_stop(Phase::Stopping, exit_code, reason, now, out);
  return out;
}

std::vector<Action> Supervisor::tick(Clock::time_point now) {
  std::vector<Action> out;
  if (phase_ == Phase::Running) {
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
      Task& t = tasks_[i];
      if (t.state == TaskState::Backoff && t.restart_at <= now) {
        t.state = TaskState::Running;
        ++t.attempt;
        out.push_back(Action{Action::Kind::Launch, i, t.attempt, 0, 0, {}});
      }
    }
  }
  if (kill_at_ && *kill_at_ <= now) {
    kill_at_.reset();
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
      if (tasks_[i].state == TaskState::Running) {
        out.push_back(Action{Action::Kind::Signal, i, 0, SIGKILL, 0, {}});
      }
    }
  }
  return out;
}

std::optional<Clock::time_point> Supervisor::next_deadline() const {
  std::optional<Clock::time_point> next = kill_at_;
  if (phase_ == Phase::Running) {
    for (const Task& t : tasks_) {
      if (t.state == TaskState::Backoff && (!next || t.restart_at < *next)) next = t.restart_at;
    }
  }
  return next;
}

void Supervisor::begin_stop(Phase phase, int exit_code, std::string message,
                            Clock::time_point now, std::vector<Action>& out) {
  phase_ = phase;
  exit_code_ = exit_code;
  message_ = std::move(message);
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    Task& t = tasks_[i];
    if (t.state == TaskState::Backoff || t.state == TaskState::Pending) {
      t.state = TaskState::Stopped;
    } else if (t.state == TaskState::Running) {
      out.push_back(Action{Action::Kind::Signal, i, 0, SIGTERM, 0, {}});
    }
  }
  kill_at_ = now + options_.grace;
  maybe_finish(out);
}

bool Supervisor::any_running() const {
  return std::any_of(tasks_.begin(), tasks_.end(),
                     [](const Task& t) { return t.state == TaskState::Running; });
}

void Supervisor::maybe_finish(std::vector<Action>& out) {
  if (phase_ == Phase::Running || phase_ == Phase::Finished || any_running()) return;
  phase_ = Phase::Finished;
  kill_at_.reset();
  out.push_back(Action{Action::Kind::Finish, 0, 0, 0, exit_code_, message_});
}

}  // namespace slipway::launch
