// TaskRunner: one task's life cycle, event driven (see task_runner.hpp).
// Over 500 lines, one concern: one task's life cycle, its states and their
// steps (join, addresses awaited, start, relay, grace, report); a split would
// spread the one state machine that task_runner.hpp states over files.
#include "slipway/tasks/task_runner.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "slipway/base/held_port.hpp"
#include "slipway/base/replace_file.hpp"
#include "slipway/core/checkpoint_notice.hpp"
#include "slipway/base/local_address.hpp"
#include "slipway/base/terminal_stream.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/endpoint.hpp"
#include "slipway/tasks/launch_environment.hpp"
#include "slipway/tasks/task_command.hpp"
#include "slipway/tasks/task_output.hpp"

namespace slipway::tasks {
namespace {

using std::chrono::milliseconds;
constexpr milliseconds kLingerAfterExit{2000};

bool is_terminating(int sig) {
  return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT || sig == SIGKILL;
}

core::Endpoint published_address(const core::AddressRef& ref, const std::string& value) {
  try {
    auto parsed = rendezvous::parse_endpoint(value);
    return core::Endpoint{parsed.host, parsed.port};
  } catch (const std::invalid_argument&) {
    throw std::runtime_error("malformed address '" + value + "' published under " +
                             core::keys::address(ref.node, ref.replica, ref.port));
  }
}

}  // namespace

base::PortRange epoch_port_range(base::PortRange range, std::uint32_t epoch) {
  const std::uint32_t middle = (std::uint32_t{range.low} + range.high) / 2;
  if (epoch % 2 == 0) return {range.low, static_cast<std::uint16_t>(middle)};
  return {static_cast<std::uint16_t>(middle + 1), range.high};
}

struct TaskRunner::Task {
  enum class State { waiting, running, draining };

  TaskId id;
  std::uint32_t index = 0;
  std::shared_ptr<const core::Plan> plan;  // the program as it ran at the task's start
  const core::Task* task = nullptr;        // in `plan`
  core::TaskLaunch launch;
  core::EnvMap starter_env;
  std::vector<base::HeldPort> ports;
  core::ResolvedAddresses addresses;
  // What it still waits for, by rendezvous key (a key event finds its
  // waiter in O(log n), whatever the number of keys waited for).
  std::map<std::string, core::AddressRef> missing;
  State state = State::waiting;
  Clock::time_point wire_deadline{};
  // Every address is known, but an address file it reads its list from
  // (too many for the environment) does not hold them yet: look again then,
  // and start anyway after files_wait_until.
  std::optional<Clock::time_point> files_check_at;
  std::optional<Clock::time_point> files_wait_until;
  int files_late_checks = 0;
  std::optional<Clock::time_point> kill_at;  // running: the grace's end; draining: the linger's
  pid_t pid = -1;
  std::uint64_t notice_seq = 0;  // the last checkpoint notice it had
  bool hooks_ran = false;
  std::unique_ptr<TaskOutput> output;
  base::ExitStatus status;

  // Takes the values read for `missing` (in missing_keys() order); keeps
  // what is still missing.
  void resolve(const std::vector<std::optional<std::string>>& values) {
    std::size_t i = 0;
    for (auto it = missing.begin(); it != missing.end(); ++i) {
      if (i < values.size() && values[i]) {
        addresses.set(it->second, published_address(it->second, *values[i]));
        it = missing.erase(it);
      } else {
        ++it;
      }
    }
  }

  // One key's value, when it is one it waits for.
  void resolve_key(const std::string& key, const std::optional<std::string>& value) {
    auto it = missing.find(key);
    if (it == missing.end() || !value) return;
    addresses.set(it->second, published_address(it->second, *value));
    missing.erase(it);
  }

  std::vector<std::string> missing_keys() const {
    std::vector<std::string> keys;
    keys.reserve(missing.size());
    for (const auto& [key, ref] : missing) keys.push_back(key);
    return keys;
  }

  std::vector<core::AddressRef> missing_refs() const {
    std::vector<core::AddressRef> refs;
    refs.reserve(missing.size());
    for (const auto& [key, ref] : missing) refs.push_back(ref);
    return refs;
  }
};

struct TaskRunner::Prepared {
  std::unique_ptr<Task> task;  // nullptr: `error` says why
  std::string error;
};

TaskRunner::TaskRunner(const core::Plan& plan, TaskControl& control, TaskRunnerOptions options)
    : plan_(plan), control_(control), options_(std::move(options)), host_name_(base::this_host_name()) {}

TaskRunner::~TaskRunner() {
  for (auto& [index, p] : prepared_) {
    if (p->task) control_.ended(p->task->id, 1);  // prepared, never started
  }
  for (auto& [id, t] : tasks_) {
    if (t->pid > 0) base::signal_group(t->pid, SIGKILL);
  }
}

std::unique_ptr<TaskRunner::Task> TaskRunner::make_task(const TaskStart& start) {
  const core::Task& planned = plan_.tasks.at(start.task);
  auto t = std::make_unique<Task>();
  // Without a live plan, the runner's (which outlives every task).
  t->plan = start.live_plan ? start.live_plan
                            : std::shared_ptr<const core::Plan>(&plan_, [](const core::Plan*) {});
  const core::Task* live = t->plan->find_task(planned.node, planned.replica);
  if (live == nullptr) {
    throw std::runtime_error("not a live replica of " + planned.node + " (the program resized)");
  }
  const core::Task& task = *live;
  const core::Plan& plan = *t->plan;
  t->id = TaskId{++next_id_};
  t->index = start.task;
  t->task = &task;
  t->launch = start.launch;
  t->starter_env = start.env;
  const std::string& advertised =
      advertised_host(plan.host(task), options_.advertise_host, host_name_);
  // Only a world's ports change halves with its epoch; a task of a node in
  // none (every framework but none forms a world) draws from the whole
  // range, so that one host can hold twice as many of them.
  const bool world = plan.node(task).framework.value != core::Framework::none;
  const base::PortRange range = world ? epoch_port_range(base::default_port_range(), start.launch.epoch)
                                      : base::default_port_range();
  for (const auto& port_name : task.ports) {
    t->ports.push_back(base::HeldPort::acquire(port_name, range));
    t->addresses.set(core::AddressRef{task.node, task.replica, port_name},
                     core::Endpoint{advertised, t->ports.back().port()});
  }
  for (const auto& ref : core::required_addresses(plan, task)) {
    if (!t->addresses.find(ref)) t->missing.emplace(core::keys::address(ref.node, ref.replica, ref.port), ref);
  }
  return t;
}

void TaskRunner::prepare(const std::vector<TaskStart>& tasks) {
  std::vector<JoinRequest> requests;
  std::vector<std::uint32_t> joining;
  for (const TaskStart& start : tasks) {
    auto& slot = prepared_[start.task];
    if (slot && slot->task) control_.ended(slot->task->id, 1);  // prepared before, never started
    slot = std::make_unique<Prepared>();
    try {
      slot->task = make_task(start);
    } catch (const std::exception& e) {
      slot->error = e.what();
      continue;
    }
    const Task& t = *slot->task;
    JoinRequest request;
    request.id = t.id;
    request.task = t.task;
    request.attempt = t.launch.attempt;
    for (const auto& port : t.ports) {
      core::AddressRef ref{t.task->node, t.task->replica, port.name()};
      request.published.emplace_back(core::keys::address(ref.node, ref.replica, ref.port),
                                     t.addresses.find(ref)->to_string());
    }
    request.wanted = t.missing_keys();
    for (TaskHooks* hook : options_.hooks) {
      request.needs_client = request.needs_client || hook->needs_client(*t.plan, *t.task);
    }
    requests.push_back(std::move(request));
    joining.push_back(start.task);
  }
  if (requests.empty()) return;
  auto joined = control_.join(requests);
  for (std::size_t i = 0; i < joining.size(); ++i) {
    Prepared& p = *prepared_[joining[i]];
    if (i >= joined.size() || !joined[i].ok()) {
      p.error = "cannot join the rendezvous: " + (i < joined.size() ? joined[i].error : "no answer");
      p.task.reset();
      continue;
    }
    try {
      p.task->resolve(joined[i].values);
    } catch (const std::exception& e) {
      control_.ended(p.task->id, 1);
      p.error = e.what();
      p.task.reset();
    }
  }
}

TaskId TaskRunner::start(const TaskStart& start) {
  auto it = prepared_.find(start.task);
  if (it == prepared_.end() || (it->second->task && it->second->task->launch.attempt != start.launch.attempt)) {
    prepare({start});
    it = prepared_.find(start.task);
  }
  std::unique_ptr<Prepared> prepared = std::move(it->second);
  prepared_.erase(it);
  if (!prepared->task) throw std::runtime_error(prepared->error);
  std::unique_ptr<Task> owned = std::move(prepared->task);
  Task& t = *owned;
  for (const auto& [name, value] : start.env) t.starter_env[name] = value;
  const TaskId id = t.id;
  t.wire_deadline = Clock::now() + options_.wire_timeout;
  tasks_.emplace(id, std::move(owned));
  if (t.missing.empty()) resolve_and_launch(t);  // may end it already
  return id;
}

void TaskRunner::resolve_and_launch(Task& t) {
  try {
    if (!t.missing.empty()) t.resolve(control_.read(t.id, t.missing_keys()));
    if (t.missing.empty()) launch(t);
  } catch (const std::exception& e) {
    fail(t, 1, e.what());
  }
}

// The live address files of `t`'s handles (SLIPWAY_ADDR_FILE_*; the only
// source of a list too long for its environment) and what each must hold
// when it starts: the addresses it starts with, one per line in replica
// order.
std::vector<std::pair<std::string, std::string>> TaskRunner::expected_address_files(const Task& t) const {
  std::vector<std::pair<std::string, std::string>> out;
  if (options_.address_dir.empty()) return out;
  for (const auto& handle : t.plan->node(*t.task).handles) {
    const core::NodeSpec* target = t.plan->program.find_node(handle.value);
    if (target == nullptr) continue;
    const auto replicas = t.plan->tasks_of(target->name.value);
    for (const auto& port : target->ports) {
      std::string content;
      for (const core::Task* r : replicas) {
        if (const auto* endpoint = t.addresses.find({target->name.value, r->replica, port.value})) {
          content += endpoint->to_string() + "\n";
        }
      }
      out.emplace_back(options_.address_dir + "/" + core::address_file_name(target->name.value, port.value),
                       std::move(content));
    }
  }
  return out;
}

// Whether the address files `t` reads hold what it starts with; if not, it
// looks again shortly (the launcher writes them as the addresses come in),
// for kAddressFileWait at most.
bool TaskRunner::address_files_ready(Task& t) {
  std::string stale;
  for (const auto& [path, content] : expected_address_files(t)) {
    std::ifstream in(path, std::ios::binary);
    std::string held((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (held != content) {
      stale = path;
      break;
    }
  }
  const auto now = Clock::now();
  if (stale.empty()) {
    t.files_check_at.reset();
    return true;
  }
  if (!t.files_wait_until) t.files_wait_until = now + kAddressFileWait;
  // At least a few looks, whatever the clock says: a long turn of the loop
  // (thousands of tasks started at once) must not use the wait up alone.
  if (now >= *t.files_wait_until && ++t.files_late_checks > 3) {
    report(*t.task, "its address file " + stale + " does not hold the addresses it starts with (the node "
                    "resized meanwhile?); starting with the file as it is");
    t.files_check_at.reset();
    return true;
  }
  t.files_check_at = now + kAddressFileRecheck;
  return false;
}

void TaskRunner::launch(Task& t) {
  if (!address_files_ready(t)) return;  // stays waiting
  core::EnvMap added = added_environment(*t.plan, *t.task, t.addresses, t.launch,
                                         options_.launcher_binds_gpus, options_.advertise_host,
                                         options_.address_dir, options_.run_dir);
  added.insert(t.starter_env.begin(), t.starter_env.end());  // slipway's task variables win
  TaskContext context{*t.plan, *t.task, t.launch, control_.client(t.id)};
  t.hooks_ran = true;
  for (TaskHooks* hook : options_.hooks) hook->before_start(context, t.ports, added);
  std::vector<std::string> env = options_.inherited_env;
  merge_environment(env, added);
  t.output = std::make_unique<TaskOutput>(t.task->name(), options_.log_dir, t.launch, host_name_,
                                          options_.log_limit);
  for (auto& port : t.ports) port.release();  // handed to the command
  try {
    t.pid = start_command(t.plan->node(*t.task), std::move(env), *t.output);
  } catch (const std::exception& e) {
    fail(t, 127, e.what());  // t is gone
    return;
  }
  t.state = Task::State::running;
  by_command_[t.pid] = t.id;
  control_.started(t.id, t.pid);
}

void TaskRunner::report(const core::Task& task, const std::string& message) const {
  base::terminal_stderr().write(task.name() + ": " + options_.speaker + ": " + message + "\n");
}

void TaskRunner::fail(Task& t, int code, const std::string& message) {
  report(*t.task, message);
  if (t.output) t.output->keep_log();
  finish(t, base::ExitStatus{false, code});
}

void TaskRunner::finish(Task& t, base::ExitStatus status) {
  const int code = status.shell_code();
  if (code != 0 && t.output) t.output->keep_log();  // the launcher points at it
  if (t.hooks_ran) {
    TaskContext context{*t.plan, *t.task, t.launch, control_.client(t.id)};
    for (TaskHooks* hook : options_.hooks) {
      try {
        hook->after_exit(context, code);
      } catch (const std::exception& e) {
        report(*t.task, e.what());
      }
    }
  }
  control_.ended(t.id, code);
  ended_.push_back({t.id, t.index, status});
  if (t.pid > 0) by_command_.erase(t.pid);
  tasks_.erase(t.id);  // t is gone
}

void TaskRunner::signal(TaskId id, int sig) {
  auto it = tasks_.find(id);
  if (it == tasks_.end()) return;
  Task& t = *it->second;
  if (t.state == Task::State::waiting) {
    if (is_terminating(sig)) finish(t, base::ExitStatus{false, 128 + sig});  // never started
    return;
  }
  base::signal_group(t.pid, sig);  // the command, or what it left behind
  if (t.state == Task::State::running && is_terminating(sig) && sig != SIGKILL && !t.kill_at) {
    t.kill_at = Clock::now() + options_.grace;
  }
}

void TaskRunner::checkpoint_notice(TaskId id, const std::string& text) {
  const auto notice = core::parse_notice(text);
  for (const auto& [task_id, t] : tasks_) {
    if ((id && task_id != id) || t->state != Task::State::running) continue;
    if (!notice) {
      report(*t->task, "dropped a checkpoint notice that is no notice (docs/resume.md)");
      continue;
    }
    if (notice->seq <= t->notice_seq) continue;
    t->notice_seq = notice->seq;
    if (!options_.run_dir.empty()) {
      const std::string file = core::notice_file(options_.run_dir, t->task->name());
      if (std::string error = base::replace_file(file, text + "\n", 0600); !error.empty()) {
        report(*t->task, "checkpoint notice " + std::to_string(notice->seq) + " not delivered: " + error);
      }
    }
    if (const int sig = t->plan->node(*t->task).notice_signal.value; sig != 0) base::signal_group(t->pid, sig);
  }
}

void TaskRunner::signal_all(int sig) {
  std::vector<TaskId> ids;
  for (const auto& [id, t] : tasks_) ids.push_back(id);
  for (TaskId id : ids) signal(id, sig);
}

std::optional<pid_t> TaskRunner::running_command(TaskId id) const {
  const auto it = tasks_.find(id);
  if (it == tasks_.end() || it->second->state != Task::State::running) return std::nullopt;
  return it->second->pid;
}

bool TaskRunner::reaped(pid_t pid, const base::ExitStatus& status) {
  auto it = by_command_.find(pid);
  if (it == by_command_.end()) return false;
  Task& t = *tasks_.at(it->second);
  t.status = status;
  t.output->relay_available();
  // Whatever the command left in its process group goes now.
  base::signal_group(t.pid, SIGTERM);
  if (t.output->finished()) {
    finish(t, status);
    return true;
  }
  t.state = Task::State::draining;
  t.kill_at = Clock::now() + std::min<milliseconds>(options_.grace, kLingerAfterExit);
  return true;
}

void TaskRunner::key_changed(const std::string& key) {
  std::vector<TaskId> affected;
  for (const auto& [id, t] : tasks_) {
    if (t->state == Task::State::waiting && t->missing.count(key)) affected.push_back(id);
  }
  for (TaskId id : affected) {
    auto it = tasks_.find(id);
    if (it == tasks_.end()) continue;
    Task& t = *it->second;
    try {
      // That key alone: a task waiting for N keys reads each once.
      const auto values = control_.read(t.id, {key});
      if (!values.empty()) t.resolve_key(key, values.front());
      if (t.missing.empty()) launch(t);
    } catch (const std::exception& e) {
      fail(t, 1, e.what());
    }
  }
}

void TaskRunner::on_notices() {
  for (const ControlNotice& notice : control_.take_notices()) {
    if (notice.kind == ControlNotice::Kind::key_set) {
      key_changed(notice.key);
    } else if (notice.kind == ControlNotice::Kind::checkpoint) {
      checkpoint_notice(notice.task, notice.reason);
    } else if (notice.lost) {
      // No grace: the launcher may be starting this task's replacement.
      for (const auto& [id, t] : tasks_) {
        if (t->state == Task::State::running) report(*t->task, notice.reason + "; killing the task now");
      }
      signal_all(SIGKILL);
    } else if (notice.task) {
      signal(notice.task, SIGTERM);
    } else {
      signal_all(SIGTERM);
    }
  }
}

void TaskRunner::watch(std::vector<pollfd>& fds) {
  polled_.clear();
  polled_control_ = control_.pollable() >= 0;
  if (polled_control_) fds.push_back({control_.pollable(), POLLIN, 0});
  for (const auto& [id, t] : tasks_) {
    if (!t->output) continue;
    for (int fd : t->output->open_fds()) {
      fds.push_back({fd, POLLIN, 0});
      polled_.push_back(id);
    }
  }
}

void TaskRunner::watched(const pollfd* fds, std::size_t count) {
  std::size_t first = 0;
  if (polled_control_ && count > 0) {
    first = 1;
    if (fds[0].revents) on_notices();
  }
  std::vector<TaskId> drained;
  for (std::size_t i = first; i < count && i - first < polled_.size(); ++i) {
    if (!fds[i].revents) continue;
    auto it = tasks_.find(polled_[i - first]);
    if (it == tasks_.end() || !it->second->output) continue;
    Task& t = *it->second;
    t.output->pump(fds[i].fd);
    if (t.state == Task::State::draining && t.output->finished()) drained.push_back(t.id);
  }
  for (TaskId id : drained) {
    if (auto it = tasks_.find(id); it != tasks_.end()) finish(*it->second, it->second->status);
  }
  fire_timeouts(Clock::now());
}

void TaskRunner::fire_timeouts(Clock::time_point now) {
  std::vector<TaskId> due;
  for (const auto& [id, t] : tasks_) {
    const bool files_due = t->state == Task::State::waiting && t->files_check_at && now >= *t->files_check_at;
    const bool waited_out = t->state == Task::State::waiting && now >= t->wire_deadline;
    if (files_due || waited_out || (t->kill_at && now >= *t->kill_at)) due.push_back(id);
  }
  for (TaskId id : due) {
    auto it = tasks_.find(id);
    if (it == tasks_.end()) continue;
    Task& t = *it->second;
    switch (t.state) {
      case Task::State::waiting:
        if (t.missing.empty() && t.files_check_at) {
          launch(t);  // its address files, once more
        } else {
          fail(t, 1, wire_timeout_message(options_.wire_timeout, t.missing_refs()));
        }
        break;
      case Task::State::running:
        t.kill_at.reset();
        base::signal_group(t.pid, SIGKILL);
        break;
      case Task::State::draining:
        base::signal_group(t.pid, SIGKILL);
        t.output->relay_available();
        finish(t, t.status);
        break;
    }
  }
}

std::optional<TaskRunner::Clock::time_point> TaskRunner::deadline() const {
  if (!ended_.empty()) return Clock::now();
  std::optional<Clock::time_point> next;
  auto consider = [&next](Clock::time_point when) {
    if (!next || when < *next) next = when;
  };
  for (const auto& [id, t] : tasks_) {
    if (t->state == Task::State::waiting) consider(t->wire_deadline);
    if (t->files_check_at) consider(*t->files_check_at);
    if (t->kill_at) consider(*t->kill_at);
  }
  return next;
}

std::vector<TaskEnd> TaskRunner::take_ended() {
  control_.flush();
  return std::exchange(ended_, {});
}

std::string wire_timeout_message(std::chrono::milliseconds timeout,
                                 const std::vector<core::AddressRef>& missing) {
  std::string what;
  for (const auto& ref : missing) {
    what += (what.empty() ? "" : ", ") + ref.node + "." + std::to_string(ref.replica) +
            " port '" + ref.port + "'";
  }
  return "timed out after " + std::to_string(timeout.count() / 1000) +
         " s waiting for the address of " + what +
         "; check that those tasks started (see their logs), or raise the wait with "
         "SLIPWAY_WIRE_TIMEOUT=SECONDS";
}

}  // namespace slipway::tasks
