// The task agent: a small event loop around the task runner (see
// task_agent.hpp for the contract).
#include "slipway/exec/task_agent.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <iterator>
#include <map>
#include <stdexcept>

#include "slipway/base/environment.hpp"
#include "slipway/base/event_loop.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/terminal_stream.hpp"
#include "slipway/core/checkpoint_notice.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/exec/proc_files.hpp"
#include "slipway/exec/usage_publisher.hpp"
#include "slipway/rendezvous/client.hpp"
#include "slipway/tasks/launch_environment.hpp"
#include "slipway/tasks/task_runner.hpp"

namespace slipway::exec {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr int kForwardedSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
// How long, at the end, a reader that stalled may keep the agent waiting.
constexpr milliseconds kFinalFlush{5000};
constexpr const char* kSpeaker = "slipway-exec";

bool is_terminating(int sig) {
  return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

std::vector<int> agent_signals() {
  std::vector<int> signals(std::begin(kForwardedSignals), std::end(kForwardedSignals));
  signals.push_back(SIGCHLD);
  return signals;
}

std::uint32_t find_task(const core::Plan& plan, const std::string& name) {
  auto parsed = core::parse_task_name(name);
  if (!parsed) throw std::runtime_error("bad task name '" + name + "' (expected NODE.REPLICA)");
  const core::Task* task = plan.find_task(parsed->node, parsed->replica);
  if (!task) throw std::runtime_error("the plan has no task '" + name + "'");
  return static_cast<std::uint32_t>(task - plan.tasks.data());
}

class Agent {
 public:
  Agent(const core::Plan& plan, const AgentOptions& options, tasks::TaskControl& control)
      : plan_(plan),
        options_(options),
        control_(control),
        runner_(plan, control, runner_options(options)),
        usage_(proc_files_, UsagePublisher::host_options(),
               [](const std::string& line) { base::terminal_stderr().write(line + "\n"); }) {}

  int run();

 private:
  static tasks::TaskRunnerOptions runner_options(const AgentOptions& options) {
    tasks::TaskRunnerOptions r;
    r.speaker = kSpeaker;
    r.log_dir = options.log_dir;
    r.address_dir = options.address_dir;
    r.run_dir = options.run_dir;
    r.log_limit = options.log_limit;
    r.advertise_host = options.advertise_host;
    r.wire_timeout = options.wire_timeout;
    r.grace = options.grace;
    r.launcher_binds_gpus = options.launcher_binds_gpus;
    r.inherited_env = base::this_environment();
    r.hooks = options.hooks;
    return r;
  }
  bool start_all();
  void loop();
  void on_signal(int sig);
  void take_ends();
  void sample_usage();

  void relay_stop(int sig);

  const core::Plan& plan_;
  const AgentOptions& options_;
  tasks::TaskControl& control_;
  tasks::TaskRunner runner_;
  ProcFiles proc_files_;
  UsagePublisher usage_;  // usage/NODE.REPLICA of each running command
  bool stop_relayed_ = false;
  base::EventLoop events_{agent_signals()};
  std::map<tasks::TaskId, std::size_t> order_;  // each task's place in options.tasks
  std::vector<int> codes_;                      // per task, once ended
  std::size_t running_ = 0;
  bool failure_seen_ = false;
};

bool Agent::start_all() {
  std::vector<tasks::TaskStart> starts;
  std::string current = options_.tasks.empty() ? "slipway-exec" : options_.tasks.front();
  try {
    for (const auto& name : options_.tasks) {
      current = name;
      starts.push_back({find_task(plan_, name), {options_.attempt, options_.epoch}, {}});
    }
    runner_.prepare(starts);
    for (std::size_t i = 0; i < starts.size(); ++i) {
      current = plan_.tasks[starts[i].task].name();
      order_[runner_.start(starts[i])] = i;
      ++running_;
    }
  } catch (const std::exception& e) {
    base::terminal_stderr().write(current + ": " + kSpeaker + ": " + e.what() + "\n");
    return false;
  }
  return true;
}

void Agent::take_ends() {
  for (const tasks::TaskEnd& end : runner_.take_ended()) {
    auto it = order_.find(end.id);
    if (it == order_.end()) continue;
    codes_[it->second] = end.status.shell_code();
    --running_;
    // A failed colocated command takes its partners down with it.
    if (!end.status.success() && !failure_seen_ && !options_.separate_units) {
      failure_seen_ = true;
      runner_.signal_all(SIGTERM);
    }
  }
}

void Agent::on_signal(int sig) {
  if (sig == SIGTERM && options_.slurm_step) {
    // Slurm's own SIGTERM (preemption, scontrol requeue, scancel) reached
    // every process of the step already. The launcher may not have it (a
    // preemption signals the steps only): it is asked for a notice and a
    // stop first, before any task here ends of it. Tasks that act on
    // notices are let run: the launcher stops them at the notice's
    // deadline (or Slurm does).
    relay_stop(sig);
    for (const auto& [id, place] : order_) {
      const core::Task& task = plan_.tasks[find_task(plan_, options_.tasks.at(place))];
      if (!core::hears_notices(plan_.node(task))) runner_.signal(id, sig);
    }
    return;
  }
  runner_.signal_all(sig);
  if (sig == SIGUSR1 || sig == SIGUSR2) relay_stop(sig);
}

// In a Slurm step, SIGUSR1 and SIGUSR2 are the time limit's warning
// (`--signal`, which Slurm sends to every step of the job, not to the
// launcher), and SIGTERM a preemption, `scontrol requeue` or scancel (which
// the launcher, outside the steps, may not get): the agent asks the
// launcher for a checkpoint notice and a stop, once (docs/resume.md). The
// commands have the signal too.
void Agent::relay_stop(int sig) {
  if (stop_relayed_ || !options_.slurm_step) return;
  for (const auto& [id, place] : order_) {
    rendezvous::Client* client = control_.client(id);
    if (client == nullptr) continue;
    try {
      const std::string& task = options_.tasks.at(place);
      client->put(std::string(core::keys::kCheckpointRequest),
                  sig == SIGTERM ? "stop SIGTERM from Slurm to " + task + " (a preemption, scontrol requeue or scancel)"
                                 : std::string("stop the time limit is near (") +
                                       (sig == SIGUSR1 ? "SIGUSR1" : "SIGUSR2") + " from Slurm to " + task + ")",
                  rendezvous::Scope::program);
      stop_relayed_ = true;
      return;
    } catch (const std::exception& e) {
      base::terminal_stderr().write(std::string(kSpeaker) + ": cannot ask for a checkpoint notice: " + e.what() + "\n");
    }
  }
}

// The usage of each task whose command runs, on the loop's own turn (the
// puts are asynchronous: a slow rendezvous never holds the loop).
void Agent::sample_usage() {
  std::vector<UsagePublisher::Task> running;
  for (const auto& [id, place] : order_) {
    const auto pid = runner_.running_command(id);
    rendezvous::Client* client = control_.client(id);
    if (!pid || client == nullptr) continue;
    running.push_back({options_.tasks.at(place), *pid,
                       [client](const std::string& key, const std::string& value, UsagePublisher::Done done) {
                         client->put_async(key, value, rendezvous::Scope::program,
                                           [done](rendezvous::Status status, const std::string& message) {
                                             done(status == rendezvous::Status::ok, message);
                                           });
                       }});
  }
  const auto unix_ms = std::chrono::duration_cast<milliseconds>(
      std::chrono::system_clock::now().time_since_epoch()).count();
  usage_.sample(Clock::now(), unix_ms, running);
}

void Agent::loop() {
  // Output before exits (the loop's order): a task's last lines come
  // before its end.
  events_.add_source(runner_);
  events_.on_signal([this](int sig) { on_signal(sig); });
  events_.on_child_exit([this](pid_t pid, const base::ExitStatus& status) {
    runner_.reaped(pid, status);  // or an orphan
  });
  while (running_ > 0) {
    take_ends();
    if (running_ == 0) break;
    if (Clock::now() >= usage_.next_sample()) sample_usage();
    if (!events_.turn(usage_.next_sample())) return;
  }
}

int Agent::run() {
  base::terminal_stdout().never_block();
  base::terminal_stderr().never_block();
  base::become_subreaper();
  codes_.assign(options_.tasks.size(), 128 + SIGKILL);
  const bool started = start_all();
  if (!started) runner_.signal_all(SIGKILL);
  loop();
  // Whatever the commands left outside their process groups (we are their
  // subreaper) goes now.
  base::terminate_descendants(std::min<milliseconds>(options_.grace, milliseconds(2000)));
  int code = started ? 0 : 1;
  for (int task_code : codes_) {
    if (code == 0 && started) code = task_code;
  }
  // The last lines, unless the reader stalled for good (or we are told to
  // stop).
  events_.flush_output(Clock::now() + kFinalFlush, is_terminating);
  return code;
}

}  // namespace

void block_agent_signals() {
  base::block_signals(agent_signals());
  // A closed terminal must not stop the task (its lines still reach the
  // log); the command starts with every disposition back to the default.
  signal(SIGPIPE, SIG_IGN);
}

int run_agent(const core::Plan& plan, const AgentOptions& options, tasks::TaskControl& control) {
  Agent agent(plan, options, control);
  return agent.run();
}

}  // namespace slipway::exec
