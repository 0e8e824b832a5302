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
  for (auto& spec : tasks) {
    if (spec.world >= 0) {
      const auto w = static_cast<std::size_t>(spec.world);
      if (worlds_.size() <= w) worlds_.resize(w + 1);
      World& world = worlds_[w];
      world.max_retries = world.max_retries < 0 ? spec.max_retries
                                                : std::min(world.max_retries, spec.max_retries);
    }
    tasks_.push_back(Task{std::move(spec)});
  }
}

Supervisor::TaskView Supervisor::task(std::size_t index) const {
  const Task& t = tasks_.at(index);
  const int epoch = t.spec.world >= 0 ? worlds_[static_cast<std::size_t>(t.spec.world)].epoch : 0;
  return TaskView{t.spec, t.state, t.attempt, epoch};
}

bool Supervisor::exit_expected(std::size_t index) const {
  const Task& t = tasks_.at(index);
  return phase_ == Phase::Running && t.spec.world >= 0 &&
         worlds_[static_cast<std::size_t>(t.spec.world)].restarting;
}

std::chrono::milliseconds Supervisor::backoff(int failures) const {
  auto grown = options_.backoff_initial * (1LL << std::min(failures, 20));
  return std::min<std::chrono::milliseconds>(grown, options_.backoff_max);
}

bool Supervisor::world_running(int world) const {
  return std::any_of(tasks_.begin(), tasks_.end(), [world](const Task& t) {
    return t.spec.world == world && t.state == TaskState::Running;
  });
}

void Supervisor::restart_world(int world, std::size_t failed, const TaskExit& exit,
                               Clock::time_point now, std::vector<Action>& out) {
  World& w = worlds_[static_cast<std::size_t>(world)];
  std::string stopping;
  for (const Task& t : tasks_) {
    if (t.spec.world == world && t.state == TaskState::Running && &t != &tasks_[failed]) {
      stopping += (stopping.empty() ? "" : ", ") + t.spec.name;
    }
  }
  out.push_back(Action{Action::Kind::Note, failed, 0, 0, 0, 0,
                       "the world of " + tasks_[failed].spec.name + " (" + exit.describe() +
                           ") restarts as epoch " +
                           std::to_string(w.epoch + 1) + " (" + std::to_string(w.failures + 1) + " of " +
                           std::to_string(w.max_retries) + " restarts allowed by max_retries)" +
                           (stopping.empty() ? "" : "; stopping " + stopping)});
  w.restarting = true;
  w.restart_at = now + backoff(w.failures);
  ++w.failures;
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    Task& t = tasks_[i];
    if (t.spec.world != world) continue;
    if (t.state == TaskState::Running && i != failed) {
      out.push_back(Action{Action::Kind::Signal, i, 0, 0, SIGTERM, 0, {}});
      w.kill_at = now + options_.grace;
      continue;  // becomes Backoff when it exits
    }
    t.state = TaskState::Backoff;  // the failed one, and those done already
  }
}

void Supervisor::fail_program(Task& t, const TaskExit& exit, int retries_used,
                              Clock::time_point now, std::vector<Action>& out) {
  t.state = TaskState::Failed;
  std::string budget = t.spec.max_retries == 0
                           ? "no retries allowed (max_retries = 0)"
                           : "retries exhausted (max_retries = " +
                                 std::to_string(t.spec.max_retries) + ")";
  std::string when = t.spec.world >= 0
                         ? "in epoch " + std::to_string(retries_used) + " of its world"
                         : "on attempt " + std::to_string(t.attempt);
  begin_stop(Phase::Stopping, 1, "task " + t.spec.name + " " + exit.describe() + " " + when + "; " + budget,
             now, out);
}

std::vector<Action> Supervisor::start(Clock::time_point) {
  std::vector<Action> out;
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    tasks_[i].state = TaskState::Running;
    out.push_back(Action{Action::Kind::Launch, i, 0, 0, 0, 0, {}});
  }
  maybe_finish(out);
  return out;
}

std::vector<Action> Supervisor::task_exited(std::size_t index, TaskExit exit,
                                            Clock::time_point now) {
  std::vector<Action> out;
  Task& t = tasks_.at(index);
  if (t.state != TaskState::Running) return out;
  if (phase_ == Phase::Running && t.spec.world >= 0) {
    World& w = worlds_[static_cast<std::size_t>(t.spec.world)];
    if (w.restarting) {
      t.state = TaskState::Backoff;  // stopped for the new epoch: expected
      return out;
    }
    if (!exit.success()) {
      if (w.failures < w.max_retries) {
        restart_world(t.spec.world, index, exit, now, out);
      } else {
        fail_program(t, exit, w.epoch, now, out);
      }
      return out;
    }
  }
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
    t.restart_at = now + backoff(t.attempt);
    return out;
  }
  fail_program(t, exit, t.attempt, now, out);
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
      if (t.spec.world < 0 && t.state == TaskState::Backoff && t.restart_at <= now) {
        t.state = TaskState::Running;
        ++t.attempt;
        out.push_back(Action{Action::Kind::Launch, i, t.attempt, 0, 0, 0, {}});
      }
    }
    for (std::size_t w = 0; w < worlds_.size(); ++w) {
      World& world = worlds_[w];
      if (!world.restarting) continue;
      const int id = static_cast<int>(w);
      if (world.kill_at && *world.kill_at <= now) {
        world.kill_at.reset();
        for (std::size_t i = 0; i < tasks_.size(); ++i) {
          if (tasks_[i].spec.world == id && tasks_[i].state == TaskState::Running) {
            out.push_back(Action{Action::Kind::Signal, i, 0, 0, SIGKILL, 0, {}});
          }
        }
      }
      if (world_running(id) || world.restart_at > now) continue;
      world.restarting = false;
      world.kill_at.reset();
      ++world.epoch;
      for (std::size_t i = 0; i < tasks_.size(); ++i) {
        Task& t = tasks_[i];
        if (t.spec.world != id) continue;
        t.state = TaskState::Running;
        ++t.attempt;
        out.push_back(Action{Action::Kind::Launch, i, t.attempt, world.epoch, 0, 0, {}});
      }
    }
  }
  if (kill_at_ && *kill_at_ <= now) {
    kill_at_.reset();
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
      if (tasks_[i].state == TaskState::Running) {
        out.push_back(Action{Action::Kind::Signal, i, 0, 0, SIGKILL, 0, {}});
      }
    }
  }
  return out;
}

std::optional<Clock::time_point> Supervisor::next_deadline() const {
  std::optional<Clock::time_point> next = kill_at_;
  auto consider = [&next](Clock::time_point when) {
    if (!next || when < *next) next = when;
  };
  if (phase_ == Phase::Running) {
    for (const Task& t : tasks_) {
      if (t.spec.world < 0 && t.state == TaskState::Backoff) consider(t.restart_at);
    }
    for (std::size_t w = 0; w < worlds_.size(); ++w) {
      const World& world = worlds_[w];
      if (!world.restarting) continue;
      if (world.kill_at) consider(*world.kill_at);
      if (!world_running(static_cast<int>(w))) consider(world.restart_at);
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
      out.push_back(Action{Action::Kind::Signal, i, 0, 0, SIGTERM, 0, {}});
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
  out.push_back(Action{Action::Kind::Finish, 0, 0, 0, 0, exit_code_, message_});
}

}  // namespace slipway::launch
