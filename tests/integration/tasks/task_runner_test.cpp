// The task runner against a real rendezvous server and real processes, over
// both control planes (the launcher's in-process one, and slipway-exec's
// rendezvous client): a task waits for a peer's address without blocking
// and starts once it is published, times out naming what is missing, ends
// with 128 + signal when stopped while waiting, leaves the rendezvous with
// its status (a failed task's address withdrawn), carries its attempt into
// every variable derived from it, and is stopped by its stop key. The test
// plays the owner's loop.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "slipway/core/plan.hpp"
#include "../../lib/local_plan.hpp"
#include "slipway/base/environment.hpp"
#include "slipway/base/event_loop.hpp"
#include "slipway/core/topology.hpp"
#include "slipway/launch/launch_units.hpp"
#include "slipway/launch/server_task_control.hpp"
#include "slipway/rendezvous/client.hpp"
#include "slipway/rendezvous/server.hpp"
#include "slipway/rendezvous/token.hpp"
#include "slipway/tasks/launch_environment.hpp"
#include "slipway/tasks/rendezvous_task_control.hpp"
#include "slipway/tasks/task_runner.hpp"

using namespace slipway;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using test::local_plan_of;

// b publishes port p; a handles b and prints the address it was given.
const char* kPair = R"(
[program]
name = "pair"
[node.a]
command = ["sh", "-c", "echo a got $SLIPWAY_ADDR_B_P"]
handles = ["b"]
[node.b]
command = ["sh", "-c", "echo b runs; exit ${B_EXIT:-0}"]
ports = ["p"]
)";

// A torch world of one: prints what is derived from the attempt.
const char* kTorch = R"(
[program]
name = "attempts"
[node.t]
command = ["sh", "-c", "echo attempt=$SLIPWAY_ATTEMPT epoch=$SLIPWAY_EPOCH restarts=$TORCHELASTIC_RESTART_COUNT"]
framework = "torch"
)";

// Runs until stopped.
const char* kSleeper = R"(
[program]
name = "sleeper"
[node.s]
command = ["sleep", "60"]
)";

enum class ControlKind { in_process, client };

std::uint32_t task_index(const core::Plan& plan, const std::string& node) {
  for (std::uint32_t i = 0; i < plan.tasks.size(); ++i) {
    if (plan.tasks[i].node == node) return i;
  }
  FAIL("no task of node " << node);
  return 0;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The owner's part: a real server whose observer hands key changes to the
// runner (the in-process control) or the runner's own notices (the client
// control), and the event loop every owner of a runner turns (output,
// posted key changes, reaping).
struct Owner {
  Owner(const core::Plan& p, ControlKind control_kind, std::chrono::milliseconds wire_timeout = 10s)
      : plan(p), kind(control_kind),
        logs(fs::temp_directory_path() / ("slipway-runner-" + std::to_string(getpid()))) {
    fs::create_directories(logs);
    rendezvous::ServerOptions options;
    options.token = rendezvous::generate_token();
    options.observed_key_prefixes = {"addr/"};
    // The observer runs on the server's thread: the in-process control
    // hears key changes on the loop's (the client control hears its own).
    options.on_event = [this](const rendezvous::Event& e) {
      if (e.kind != rendezvous::EventKind::key_changed || kind != ControlKind::in_process) return;
      loop.post([this, key = e.key] { runner->key_changed(key); });
    };
    server = std::make_unique<rendezvous::Server>(options);
    server->start();
    if (control_kind == ControlKind::in_process) {
      control = std::make_unique<launch::ServerTaskControl>(*server, server->endpoint(),
                                                            options.token);
    } else {
      control = std::make_unique<tasks::RendezvousTaskControl>(server->endpoint(), options.token,
                                                               wire_timeout);
    }
    tasks::TaskRunnerOptions runner_options;
    runner_options.log_dir = logs.string();
    runner_options.advertise_host = "127.0.0.1";
    runner_options.wire_timeout = wire_timeout;
    runner_options.grace = 1s;
    runner_options.inherited_env = base::this_environment();
    runner = std::make_unique<tasks::TaskRunner>(plan, *control, runner_options);
    loop.add_source(*runner);
    loop.on_child_exit([this](pid_t pid, const base::ExitStatus& status) { runner->reaped(pid, status); });
  }
  ~Owner() {
    runner.reset();
    control.reset();
    server->stop();
    fs::remove_all(logs);
  }

  tasks::TaskId start(const std::string& node, core::TaskLaunch launch = {}) {
    return runner->start({task_index(plan, node), launch, {{"SLIPWAY_RDZV", server->endpoint()}}});
  }

  // Turns the loop until `id` has ended (at most 20 s); returns its status.
  base::ExitStatus run_until_ended(tasks::TaskId id) {
    const auto give_up = std::chrono::steady_clock::now() + 20s;
    while (!ended.count(id)) {
      REQUIRE(std::chrono::steady_clock::now() < give_up);
      REQUIRE(loop.turn(give_up));
      for (const auto& end : runner->take_ended()) ended[end.id] = end.status;
    }
    return ended.at(id);
  }

  void replace_runner(const tasks::TaskRunnerOptions& options) {
    loop.remove_source(*runner);
    runner = std::make_unique<tasks::TaskRunner>(plan, *control, options);
    loop.add_source(*runner);
  }

  // Members as the server sees them, once every queued change arrived.
  std::vector<rendezvous::MemberRecord> members() {
    control->flush();
    return server->members();
  }

  const core::Plan& plan;
  ControlKind kind;
  fs::path logs;
  // Reaping every turn: the server's threads do not block SIGCHLD.
  base::EventLoop loop{{}, base::EventLoop::Reaping::each_turn};
  std::unique_ptr<rendezvous::Server> server;
  std::unique_ptr<tasks::TaskControl> control;
  std::unique_ptr<tasks::TaskRunner> runner;
  std::map<tasks::TaskId, base::ExitStatus> ended;
};

ControlKind pick_control() {
  return GENERATE(ControlKind::in_process, ControlKind::client);
}

const char* name_of(ControlKind kind) {
  return kind == ControlKind::in_process ? "in-process control" : "rendezvous client control";
}

}  // namespace

TEST_CASE("a task waits for its peer's address, then starts with it", "[runner]") {
  auto plan = local_plan_of(kPair);
  const ControlKind kind = pick_control();
  INFO(name_of(kind));
  Owner l(plan, kind);
  tasks::TaskId a = l.start("a");
  CHECK(l.runner->deadline().has_value());  // waiting for b's address
  tasks::TaskId b = l.start("b");
  CHECK(a != b);
  CHECK(l.run_until_ended(b).success());
  CHECK(l.run_until_ended(a).success());
  auto address = l.server->get("addr/b/0/p");
  REQUIRE(address);  // b finished with status 0: its address stays
  std::string log = read_file(l.logs / "a.0.log");
  CHECK(log.rfind("=== slipway: a.0 attempt 0 on ", 0) == 0);
  CHECK(log.find("a got " + *address) != std::string::npos);
  CHECK(read_file(l.logs / "b.0.log").find("b runs\n") != std::string::npos);
  auto members = l.members();
  REQUIRE(members.size() == 2);
  for (const auto& m : members) {
    CHECK(m.state == rendezvous::MemberState::left);
    CHECK(m.exit_status == 0);
  }
  if (kind == ControlKind::in_process) {
    for (const auto& m : members) CHECK(m.identity.pid != getpid());  // the command's pid
  }
}

TEST_CASE("a failed task's address is withdrawn", "[runner]") {
  auto plan = local_plan_of(kPair);
  const ControlKind kind = pick_control();
  INFO(name_of(kind));
  setenv("B_EXIT", "3", 1);
  Owner l(plan, kind);
  tasks::TaskId b = l.start("b");
  auto status = l.run_until_ended(b);
  unsetenv("B_EXIT");
  CHECK(status.code == 3);
  CHECK_FALSE(l.server->get("addr/b/0/p"));
  auto members = l.members();
  REQUIRE(members.size() == 1);
  CHECK(members[0].exit_status == 3);
}

TEST_CASE("waiting past the wire timeout fails the task naming the address", "[runner]") {
  auto plan = local_plan_of(kPair);
  const ControlKind kind = pick_control();
  INFO(name_of(kind));
  Owner l(plan, kind, 300ms);
  // Its message goes to stderr: catch it in a file.
  fs::path err = l.logs / "stderr";
  int saved = dup(STDERR_FILENO);
  int file = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(file, STDERR_FILENO);
  tasks::TaskId a = l.start("a");
  auto status = l.run_until_ended(a);
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(file);
  CHECK(status.code == 1);
  std::string text = read_file(err);
  CHECK(text.find("a.0: slipway: timed out after 0 s waiting for the address of b.0 port 'p'") !=
        std::string::npos);
  CHECK(l.members().at(0).exit_status == 1);
}

TEST_CASE("a signal to a waiting task ends it with 128 + signal", "[runner]") {
  auto plan = local_plan_of(kPair);
  const ControlKind kind = pick_control();
  INFO(name_of(kind));
  Owner l(plan, kind);
  tasks::TaskId a = l.start("a");
  l.runner->signal(a, SIGUSR1);  // not a stop: it keeps waiting
  CHECK(l.runner->take_ended().empty());
  l.runner->signal(a, SIGTERM);
  auto ended = l.runner->take_ended();
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].id == a);
  CHECK(ended[0].status.code == 128 + SIGTERM);
  CHECK(l.runner->idle());
}

TEST_CASE("every variable derived from the attempt and epoch carries them", "[runner]") {
  auto plan = local_plan_of(kTorch);
  const ControlKind kind = pick_control();
  INFO(name_of(kind));
  Owner l(plan, kind);
  for (core::TaskLaunch launch : {core::TaskLaunch{0, 0}, core::TaskLaunch{3, 2}}) {
    tasks::TaskId t = l.start("t", launch);
    CHECK(l.run_until_ended(t).success());
    const std::string a = std::to_string(launch.attempt);
    const std::string e = std::to_string(launch.epoch);
    const std::string log = read_file(l.logs / "t.0.log");
    CHECK(log.find("attempt=" + a + " epoch=" + e + " restarts=" + e + "\n") != std::string::npos);
    if (launch.epoch > 0) {
      CHECK(log.find("=== slipway: t.0 attempt " + a + " epoch " + e + " on ") != std::string::npos);
    }
  }
}

TEST_CASE("a terminating signal stops a running command, SIGKILL after the grace",
          "[runner]") {
  auto plan = local_plan_of(R"(
[program]
name = "stubborn"
[node.s]
command = ["sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.1; done"]
)");
  const ControlKind kind = pick_control();
  INFO(name_of(kind));
  Owner l(plan, kind);
  tasks::TaskId s = l.start("s");
  // Let the trap be set before the signal.
  const auto ready_by = std::chrono::steady_clock::now() + 10s;
  while (read_file(l.logs / "s.0.log").find("ready") == std::string::npos) {
    REQUIRE(std::chrono::steady_clock::now() < ready_by);
    REQUIRE(l.loop.turn(ready_by));
  }
  const auto stopped_at = std::chrono::steady_clock::now();
  l.runner->signal(s, SIGTERM);
  auto status = l.run_until_ended(s);
  CHECK(status.signaled);
  CHECK(status.code == SIGKILL);
  CHECK(std::chrono::steady_clock::now() - stopped_at >= 900ms);  // the grace is 1 s
}

TEST_CASE("the task's stop key stops it, whichever control hears it", "[runner]") {
  auto plan = local_plan_of(kSleeper);
  const ControlKind kind = pick_control();
  INFO(name_of(kind));
  Owner l(plan, kind);
  tasks::TaskId s = l.start("s");
  l.server->put("stop/s/0", "stopped by the test");
  if (kind == ControlKind::in_process) l.runner->signal(s, SIGTERM);  // the launcher's part
  auto status = l.run_until_ended(s);
  CHECK(status.signaled);
  CHECK(status.code == SIGTERM);
}

namespace {

// A hook that asks for a member connection and records what it was given.
struct ClientHook final : tasks::TaskHooks {
  bool needs_client(const core::Plan&, const core::Task&) const override { return true; }
  void before_start(const tasks::TaskContext& context, std::vector<base::HeldPort>& ports,
                    core::EnvMap& env) override {
    had_client = context.client != nullptr;
    held = ports.size();
    env["HOOKED"] = "yes";
    if (context.client) context.client->put("hooked", "1", rendezvous::Scope::program);
  }
  void after_exit(const tasks::TaskContext&, int exit_code) override { exit = exit_code; }
  bool had_client = false;
  std::size_t held = 0;
  int exit = -1;
};

}  // namespace

TEST_CASE("a hook that needs a member connection gets one, before the command starts",
          "[runner]") {
  auto plan = local_plan_of(R"(
[program]
name = "hooked"
[node.h]
command = ["sh", "-c", "echo hooked=$HOOKED"]
ports = ["p"]
)");
  const ControlKind kind = pick_control();
  INFO(name_of(kind));
  Owner l(plan, kind);
  ClientHook hook;
  tasks::TaskRunnerOptions options;
  options.log_dir = l.logs.string();
  options.advertise_host = "127.0.0.1";
  options.inherited_env = base::this_environment();
  options.hooks = {&hook};
  l.replace_runner(options);
  tasks::TaskId h = l.start("h");
  CHECK(l.run_until_ended(h).success());
  CHECK(hook.had_client);
  CHECK(hook.held == 1);  // the port is still held when the hook runs
  CHECK(hook.exit == 0);
  CHECK(l.server->get("hooked") == std::optional<std::string>("1"));
  CHECK(read_file(l.logs / "h.0.log").find("hooked=yes\n") != std::string::npos);
}
