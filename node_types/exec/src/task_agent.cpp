// The task agent: binds, publishes and resolves a task's addresses, then
// runs and watches its command (see task_agent.hpp for the contract).
#include "slipway/core/contract.hpp"
#include "slipway/exec/task_agent.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "slipway/exec/agent_environment.hpp"
#include "slipway/base/held_port.hpp"
#include "slipway/base/local_address.hpp"
#include "slipway/exec/horovod_rendezvous.hpp"
#include "slipway/base/process.hpp"
#include "slipway/exec/task_command.hpp"
#include "slipway/base/terminal_stream.hpp"
#include "slipway/base/unique_fd.hpp"

extern char** environ;

namespace slipway::exec {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr int kForwardedSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
// How long, at the end, a reader that stalled may keep the agent waiting.
constexpr milliseconds kFinalFlush{5000};

bool is_terminating(int sig) {
  return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

sigset_t agent_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (int sig : kForwardedSignals) sigaddset(&set, sig);
  return set;
}

// Reports a problem of one task on stderr, behind its name.
void report(const std::string& task, const std::string& message) {
  base::terminal_stderr().write(task + ": slipway-exec: " + message + "\n");
}



// One task: its plan entry, wiring, held ports and, once started, command.
struct AgentTask {
  const core::Task* task = nullptr;
  std::unique_ptr<Wiring> wiring;
  std::vector<base::HeldPort> ports;
  core::ResolvedAddresses addresses;
  pid_t pid = -1;
  std::optional<base::ExitStatus> status;
  std::unique_ptr<TaskOutput> output;
  std::unique_ptr<HorovodRendezvousServer> horovod;  // replica 0 of a horovod node
};

class Agent {
 public:
  Agent(const core::Plan& plan, const AgentOptions& options)
      : plan_(plan), options_(options), host_(base::this_host_name()) {}

  int run(const WiringFactory& make_wiring);

 private:
  void prepare(AgentTask& t, const WiringFactory& make_wiring);
  // Waits for every required address; returns false when interrupted.
  bool resolve(AgentTask& t);
  void start(AgentTask& t);
  void supervise();
  void handle_signals();
  void stop_commands(int sig);
  int finish();
  // Checks for a terminating signal or a program stop without blocking.
  bool interrupted();

  const core::Plan& plan_;
  const AgentOptions& options_;
  std::string host_;
  std::vector<AgentTask> tasks_;
  base::UniqueFd signals_;
  base::UniqueFd stop_event_;
  int stop_signal_ = 0;
  std::optional<Clock::time_point> kill_at_;
};

const core::Task& find_task(const core::Plan& plan, const std::string& name) {
  auto dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) {
    throw std::runtime_error("bad task name '" + name + "' (expected NODE.REPLICA)");
  }
  std::string node = name.substr(0, dot);
  char* end = nullptr;
  unsigned long replica = std::strtoul(name.c_str() + dot + 1, &end, 10);
  const core::Task* task =
      *end == '\0' ? plan.find_task(node, static_cast<std::uint32_t>(replica)) : nullptr;
  if (!task) throw std::runtime_error("the plan has no task '" + name + "'");
  return *task;
}

void Agent::prepare(AgentTask& t, const WiringFactory& make_wiring) {
  const core::Host& host = plan_.host(*t.task);
  const std::string& advertised = advertised_host(host, options_.advertise_host, host_);
  t.wiring = make_wiring(*t.task);
  t.wiring->on_stop([fd = stop_event_.get()](const std::string&) {
    std::uint64_t one = 1;
    ssize_t ignored = ::write(fd, &one, sizeof one);
    (void)ignored;
  });
  for (const auto& port_name : t.task->ports) {
    t.ports.push_back(base::HeldPort::acquire(port_name));
    core::AddressRef ref{t.task->node, t.task->replica, port_name};
    core::Endpoint endpoint{advertised, t.ports.back().port()};
    t.addresses.set(ref, endpoint);
    t.wiring->publish(ref, endpoint);
  }
}

bool Agent::interrupted() {
  pollfd fds[2] = {{signals_.get(), POLLIN, 0}, {stop_event_.get(), POLLIN, 0}};
  if (poll(fds, 2, 0) <= 0) return false;
  if (fds[1].revents & POLLIN) {
    stop_signal_ = SIGTERM;
    return true;
  }
  signalfd_siginfo info{};
  while (read(signals_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    if (is_terminating(static_cast<int>(info.ssi_signo))) {
      stop_signal_ = static_cast<int>(info.ssi_signo);
      return true;
    }
  }
  return false;
}

bool Agent::resolve(AgentTask& t) {
  const auto deadline = Clock::now() + options_.wire_timeout;
  std::vector<core::AddressRef> missing;
  for (const auto& ref : core::required_addresses(plan_, *t.task)) {
    if (!t.addresses.find(ref)) missing.push_back(ref);
  }
  std::size_t next = 0;
  while (next < missing.size()) {
    auto now = Clock::now();
    if (now >= deadline) {
      std::vector<core::AddressRef> still;
      for (std::size_t i = next; i < missing.size(); ++i) {
        if (!t.wiring->wait_for(missing[i], milliseconds(0))) still.push_back(missing[i]);
      }
      throw std::runtime_error(wire_timeout_message(options_.wire_timeout, still));
    }
    auto slice = std::min<milliseconds>(
        milliseconds(200), std::chrono::duration_cast<milliseconds>(deadline - now));
    if (auto endpoint = t.wiring->wait_for(missing[next], slice)) {
      t.addresses.set(missing[next], *endpoint);
      ++next;
    } else if (interrupted()) {
      return false;
    }
  }
  return true;
}

void Agent::start(AgentTask& t) {
  const core::NodeSpec& node = plan_.node(*t.task);
  std::vector<std::string> env = inherited_environment(environ);
  auto added = added_environment(plan_, *t.task, t.addresses, options_.attempt,
                                 options_.launcher_binds_gpus, options_.advertise_host);
  for (TaskHooks* hook : options_.hooks) hook->before_start(plan_, *t.task, *t.wiring, added);
  merge_environment(env, added);
  t.output = std::make_unique<TaskOutput>(t.task->name(), options_.log_dir, options_.attempt, host_,
                                          options_.log_limit);
  // The ports are handed to the command: close our sockets just before;
  // but replica 0 of a horovod node keeps Horovod's rendezvous and serves it.
  for (auto& port : t.ports) {
    if (*node.framework == core::Framework::horovod && t.task->replica == 0 &&
        port.name() == core::kHorovodRendezvousPort) {
      t.horovod = std::make_unique<HorovodRendezvousServer>(
          port.take_socket(), HorovodKvStore(HorovodKvStore::scope_sizes(plan_, t.task->node)));
    }
    port.release();
  }
  t.pid = start_command(node, std::move(env), *t.output);
}

void Agent::stop_commands(int sig) {
  for (auto& t : tasks_) {
    if (t.pid > 0 && !t.status) base::signal_group(t.pid, sig);
  }
  if (is_terminating(sig) && !kill_at_) kill_at_ = Clock::now() + options_.grace;
}

void Agent::handle_signals() {
  signalfd_siginfo info{};
  while (read(signals_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    int sig = static_cast<int>(info.ssi_signo);
    if (sig != SIGCHLD) {
      if (is_terminating(sig) && !stop_signal_) stop_signal_ = sig;
      stop_commands(sig);
      continue;
    }
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      for (auto& t : tasks_) {
        if (t.pid == pid) t.status = base::ExitStatus::from_wait_status(status);
      }
    }
  }
}

void Agent::supervise() {
  bool failure_seen = false;
  for (;;) {
    bool all_exited = true;
    for (auto& t : tasks_) all_exited = all_exited && t.status.has_value();
    if (all_exited) return;
    // A failed colocated command takes its partners down with it.
    for (auto& t : tasks_) {
      if (t.status && !t.status->success() && !failure_seen) {
        failure_seen = true;
        stop_commands(SIGTERM);
      }
    }
    std::vector<pollfd> fds{{signals_.get(), POLLIN, 0}, {stop_event_.get(), POLLIN, 0}};
    std::vector<std::pair<TaskOutput*, int>> streams;
    for (auto& t : tasks_) {
      if (!t.output) continue;
      for (int fd : t.output->open_fds()) {
        fds.push_back({fd, POLLIN, 0});
        streams.emplace_back(t.output.get(), fd);
      }
    }
    // The terminal, when it has lines waiting for a slow reader.
    std::vector<base::TerminalStream*> writing;
    for (base::TerminalStream* stream : {&base::terminal_stdout(), &base::terminal_stderr()}) {
      if (!stream->wants_write()) continue;
      fds.push_back({stream->pollable(), POLLOUT, 0});
      writing.push_back(stream);
    }
    int timeout = -1;
    if (kill_at_) {
      auto left = std::chrono::duration_cast<milliseconds>(*kill_at_ - Clock::now()).count();
      timeout = static_cast<int>(std::max<long long>(0, left));
    }
    if (poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) return;
    if (fds[0].revents & POLLIN) handle_signals();
    if (fds[1].revents & POLLIN) {
      std::uint64_t count;
      ssize_t ignored = read(stop_event_.get(), &count, sizeof count);
      (void)ignored;
      if (!stop_signal_) stop_signal_ = SIGTERM;
      stop_commands(SIGTERM);
    }
    for (std::size_t i = 0; i < streams.size(); ++i) {
      if (fds[i + 2].revents & (POLLIN | POLLHUP | POLLERR)) streams[i].first->pump(streams[i].second);
    }
    for (std::size_t i = 0; i < writing.size(); ++i) {
      if (fds[2 + streams.size() + i].revents) writing[i]->on_writable();
    }
    if (kill_at_ && Clock::now() >= *kill_at_) {
      kill_at_.reset();
      stop_commands(SIGKILL);
    }
  }
}

int Agent::finish() {
  // Whatever the commands left behind (we are their subreaper) goes now;
  // then the pipes reach end-of-file and the last lines are written.
  base::terminate_descendants(std::min<milliseconds>(options_.grace, milliseconds(2000)));
  for (auto& t : tasks_) {
    if (t.output) t.output->drain();
  }
  int code = 0;
  for (auto& t : tasks_) {
    int task_code = t.status ? t.status->shell_code() : 128 + SIGKILL;
    if (task_code != 0 && t.output) t.output->keep_log();  // the launcher points at it
    if (code == 0) code = task_code;
    for (TaskHooks* hook : options_.hooks) hook->after_exit(*t.task, task_code);
    t.wiring->leave(task_code);
  }
  // The last lines, unless the reader stalled for good (or we are told to
  // stop).
  base::flush_terminal_streams(Clock::now() + kFinalFlush, signals_.get(), [this] {
    signalfd_siginfo info{};
    bool interrupted = false;
    while (read(signals_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      interrupted = interrupted || is_terminating(static_cast<int>(info.ssi_signo));
    }
    return interrupted;
  });
  return code;
}

int Agent::run(const WiringFactory& make_wiring) {
  base::terminal_stdout().never_block();
  base::terminal_stderr().never_block();
  sigset_t set = agent_signal_set();
  signals_.reset(signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  stop_event_.reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  base::become_subreaper();
  std::string current = options_.tasks.empty() ? "slipway-exec" : options_.tasks.front();
  try {
    for (const auto& name : options_.tasks) {
      current = name;
      tasks_.emplace_back();
      tasks_.back().task = &find_task(plan_, name);
    }
    for (auto& t : tasks_) {
      current = t.task->name();
      prepare(t, make_wiring);
    }
    for (auto& t : tasks_) {
      current = t.task->name();
      if (!resolve(t)) {
        for (auto& u : tasks_) u.wiring->leave(128 + stop_signal_);
        return 128 + stop_signal_;
      }
    }
    for (auto& t : tasks_) {
      current = t.task->name();
      start(t);
    }
  } catch (const std::exception& e) {
    report(current, e.what());
    stop_commands(SIGKILL);
    for (auto& t : tasks_) {
      if (t.wiring) t.wiring->leave(1);
    }
    base::terminate_descendants(milliseconds(1000));
    return 1;
  }
  supervise();
  return finish();
}

}  // namespace

void block_agent_signals() {
  sigset_t set = agent_signal_set();
  sigprocmask(SIG_BLOCK, &set, nullptr);
  // A closed terminal must not stop the task (its lines still reach the
  // log); the command starts with every disposition back to the default.
  signal(SIGPIPE, SIG_IGN);
}

std::string address_key(const core::AddressRef& ref) {
  return core::keys::address(ref.node, ref.replica, ref.port);
}

int run_agent(const core::Plan& plan, const AgentOptions& options, const WiringFactory& wiring) {
  Agent agent(plan, options);
  return agent.run(wiring);
}

}  // namespace slipway::exec
