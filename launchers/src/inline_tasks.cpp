// InlineTasks: plain tasks of a local run, run by the launcher itself (see
// inline_tasks.hpp).
#include "slipway/launch/inline_tasks.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "slipway/launch/unit_tracker.hpp"
#include "slipway/exec/agent_environment.hpp"
#include "slipway/base/held_port.hpp"
#include "slipway/base/local_address.hpp"
#include "slipway/exec/rendezvous_wiring.hpp"
#include "slipway/exec/task_command.hpp"
#include "slipway/base/terminal_stream.hpp"

extern char** environ;

namespace slipway::launch {
namespace {

using std::chrono::milliseconds;

bool is_terminating(int sig) {
  return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT || sig == SIGKILL;
}

}  // namespace

struct InlineTasks::Task {
  enum class State { waiting, running, draining };

  pid_t id = 0;
  const core::Task* task = nullptr;
  std::uint32_t attempt = 0;
  rendezvous::Identity identity;
  std::vector<base::HeldPort> ports;
  core::ResolvedAddresses addresses;
  std::vector<core::AddressRef> missing;
  core::EnvMap launcher_env;  // what the launcher adds to its own environment
  State state = State::waiting;
  Clock::time_point deadline{};  // waiting: the wire timeout; draining: SIGKILL
  pid_t pid = -1;
  std::unique_ptr<exec::TaskOutput> output;
  base::ExitStatus status;

  // Takes the values read for `missing` (same order); keeps what is still
  // missing.
  void resolve(const std::vector<std::optional<std::string>>& values) {
    std::vector<core::AddressRef> still;
    for (std::size_t i = 0; i < missing.size(); ++i) {
      if (i < values.size() && values[i]) {
        addresses.set(missing[i], exec::parse_published_address(missing[i], *values[i]));
      } else {
        still.push_back(missing[i]);
      }
    }
    missing = std::move(still);
  }

  std::vector<std::string> missing_keys() const {
    std::vector<std::string> keys;
    for (const auto& ref : missing) keys.push_back(exec::address_key(ref));
    return keys;
  }
};

InlineTasks::InlineTasks(const core::Plan& plan, rendezvous::Server& server,
                         InlineTaskOptions options)
    : plan_(plan),
      server_(server),
      options_(std::move(options)),
      host_name_(base::this_host_name()),
      base_env_(exec::inherited_environment(environ)) {}

InlineTasks::~InlineTasks() = default;

bool InlineTasks::can_run(const core::Plan& plan, const LaunchUnit& unit) {
  if (unit.tasks.size() != 1) return false;
  auto framework = *plan.node(plan.tasks[unit.tasks.front()]).framework;
  return framework != core::Framework::mpi && framework != core::Framework::horovod;
}

std::unique_ptr<InlineTasks::Task> InlineTasks::make_task(std::uint32_t index,
                                                         std::uint32_t attempt) {
  const core::Task& task = plan_.tasks.at(index);
  auto t = std::make_unique<Task>();
  t->id = kMaxPid + ++next_id_;
  t->task = &task;
  t->attempt = attempt;
  const core::Host& host = plan_.host(task);
  const std::string& advertised = exec::advertised_host(host, options_.advertise_host, host_name_);
  for (const auto& port_name : task.ports) {
    t->ports.push_back(base::HeldPort::acquire(port_name));
    core::AddressRef ref{task.node, task.replica, port_name};
    t->addresses.set(ref, core::Endpoint{advertised, t->ports.back().port()});
  }
  for (const auto& ref : core::required_addresses(plan_, task)) {
    if (!t->addresses.find(ref)) t->missing.push_back(ref);
  }
  t->identity = rendezvous::Identity{task.node, task.replica, attempt, host_name_, getpid()};
  return t;
}

void InlineTasks::prepare(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& tasks) {
  flush();
  for (auto& [index, left] : prepared_) {  // prepared before and never started
    if (left.task) changes_.push_back({left.task->identity, std::nullopt, 1});
  }
  prepared_.clear();
  std::vector<rendezvous::Server::LocalJoinRequest> requests;
  std::vector<std::uint32_t> joining;
  for (auto [index, attempt] : tasks) {
    Prepared& p = prepared_[index];
    try {
      p.task = make_task(index, attempt);
    } catch (const std::exception& e) {
      p.error = e.what();
      continue;
    }
    rendezvous::Server::LocalJoinRequest request;
    request.id = p.task->identity;
    for (const auto& port : p.task->ports) {
      core::AddressRef ref{p.task->task->node, p.task->task->replica, port.name()};
      request.task_keys.emplace_back(exec::address_key(ref), p.task->addresses.find(ref)->to_string());
    }
    request.wanted = p.task->missing_keys();
    requests.push_back(std::move(request));
    joining.push_back(index);
  }
  if (requests.empty()) return;
  auto joined = server_.join_local(requests);
  for (std::size_t i = 0; i < joining.size(); ++i) {
    Prepared& p = prepared_[joining[i]];
    if (joined[i].status != rendezvous::Status::ok) {
      p.error = "cannot join the rendezvous: " + joined[i].message;
      p.task.reset();
      continue;
    }
    try {
      p.task->resolve(joined[i].values);
    } catch (const std::exception& e) {
      changes_.push_back({p.task->identity, std::nullopt, 1});
      p.error = e.what();
      p.task.reset();
    }
  }
}

pid_t InlineTasks::start(std::uint32_t index, std::uint32_t attempt,
                         const std::vector<std::string>& env) {
  auto it = prepared_.find(index);
  if (it == prepared_.end() || (it->second.task && it->second.task->attempt != attempt)) {
    prepare({{index, attempt}});
    it = prepared_.find(index);
  }
  Prepared prepared = std::move(it->second);
  prepared_.erase(it);
  if (!prepared.task) throw std::runtime_error(prepared.error);
  Task& t = *prepared.task;
  for (const auto& entry : env) {
    auto eq = entry.find('=');
    if (eq != std::string::npos) t.launcher_env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  try {
    if (t.missing.empty()) {
      launch(t);
    } else {
      t.deadline = Clock::now() + options_.wire_timeout;
    }
  } catch (...) {
    changes_.push_back({t.identity, std::nullopt, 1});
    throw;
  }
  pid_t id = t.id;
  tasks_.emplace(id, std::move(prepared.task));
  return id;
}

void InlineTasks::launch(Task& t) {
  // The launcher's additions, then slipway's task variables over them.
  core::EnvMap added = exec::added_environment(plan_, *t.task, t.addresses, t.attempt, true,
                                               options_.advertise_host);
  added.insert(t.launcher_env.begin(), t.launcher_env.end());  // keeps the task's own
  std::vector<std::string> env = base_env_;
  exec::merge_environment(env, added);
  t.output = std::make_unique<exec::TaskOutput>(t.task->name(), options_.log_dir, t.attempt,
                                                host_name_, options_.log_limit);
  for (auto& port : t.ports) port.release();  // handed to the command
  t.pid = exec::start_command(plan_.node(*t.task), std::move(env), *t.output);
  t.state = Task::State::running;
  by_command_[t.pid] = t.id;
  changes_.push_back({t.identity, t.pid, std::nullopt});
}

void InlineTasks::finish(Task& t, base::ExitStatus status) {
  if (!status.success() && t.output) t.output->keep_log();  // the launcher points at it
  changes_.push_back({t.identity, std::nullopt, status.shell_code()});
  ended_.emplace_back(t.id, status);
  if (t.pid > 0) by_command_.erase(t.pid);
  tasks_.erase(t.id);  // t is gone
}

void InlineTasks::signal(pid_t id, int sig) {
  auto it = tasks_.find(id);
  if (it == tasks_.end()) return;
  Task& t = *it->second;
  if (t.state != Task::State::waiting) {
    base::signal_group(t.pid, sig);  // the command, or what it left behind
  } else if (is_terminating(sig)) {
    finish(t, base::ExitStatus{false, 128 + sig});  // as an interrupted agent
  }
}

void InlineTasks::reaped(pid_t pid, const base::ExitStatus& status) {
  auto it = by_command_.find(pid);
  if (it == by_command_.end()) return;
  Task& t = *tasks_.at(it->second);
  t.status = status;
  for (int fd : t.output->open_fds()) {
    while (t.output->pump(fd)) {
    }
  }
  // Whatever the command left in its process group goes now.
  base::signal_group(t.pid, SIGTERM);
  if (t.output->finished()) {
    finish(t, status);
    return;
  }
  t.state = Task::State::draining;
  t.deadline = Clock::now() + std::min<milliseconds>(options_.grace, milliseconds(2000));
}

void InlineTasks::key_changed(const std::string& key) {
  std::vector<Task*> affected;
  for (auto& [id, t] : tasks_) {
    if (t->state != Task::State::waiting) continue;
    for (const auto& ref : t->missing) {
      if (exec::address_key(ref) == key) {
        affected.push_back(t.get());
        break;
      }
    }
  }
  for (Task* t : affected) {
    try {
      t->resolve(server_.get_many(t->missing_keys()));
      if (t->missing.empty()) launch(*t);
    } catch (const std::exception& e) {
      base::terminal_stderr().write(t->task->name() + ": slipway: " + e.what() + "\n");
      finish(*t, base::ExitStatus{false, 1});
    }
  }
}

void InlineTasks::watch(std::vector<pollfd>& fds) {
  polled_.clear();
  for (const auto& [id, t] : tasks_) {
    if (!t->output) continue;
    for (int fd : t->output->open_fds()) {
      fds.push_back({fd, POLLIN, 0});
      polled_.push_back(id);
    }
  }
}

void InlineTasks::watched(const pollfd* fds, std::size_t count) {
  std::vector<pid_t> drained;
  for (std::size_t i = 0; i < count && i < polled_.size(); ++i) {
    if (!fds[i].revents) continue;
    auto it = tasks_.find(polled_[i]);
    if (it == tasks_.end() || !it->second->output) continue;
    Task& t = *it->second;
    t.output->pump(fds[i].fd);
    if (t.state == Task::State::draining && t.output->finished()) drained.push_back(t.id);
  }
  for (pid_t id : drained) {
    if (auto it = tasks_.find(id); it != tasks_.end()) finish(*it->second, it->second->status);
  }
  fire_timeouts(Clock::now());
}

void InlineTasks::fire_timeouts(Clock::time_point now) {
  std::vector<Task*> due;
  for (auto& [id, t] : tasks_) {
    if (t->state != Task::State::running && now >= t->deadline) due.push_back(t.get());
  }
  for (Task* t : due) {
    if (t->state == Task::State::draining) {
      base::signal_group(t->pid, SIGKILL);
      finish(*t, t->status);
      continue;
    }
    base::terminal_stderr().write(t->task->name() + ": slipway: " +
                                  exec::wire_timeout_message(options_.wire_timeout, t->missing) +
                                  "\n");
    finish(*t, base::ExitStatus{false, 1});
  }
}

std::optional<InlineTasks::Clock::time_point> InlineTasks::deadline() const {
  if (!ended_.empty()) return Clock::now();
  std::optional<Clock::time_point> next;
  for (const auto& [id, t] : tasks_) {
    if (t->state == Task::State::running) continue;
    if (!next || t->deadline < *next) next = t->deadline;
  }
  return next;
}

void InlineTasks::flush() { server_.update_local(std::exchange(changes_, {})); }

std::vector<std::pair<pid_t, base::ExitStatus>> InlineTasks::take_ended() {
  flush();
  return std::exchange(ended_, {});
}

}  // namespace slipway::launch
