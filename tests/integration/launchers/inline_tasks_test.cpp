// InlineTasks against a real rendezvous server and real processes: a task
// waits for a peer's address without blocking and starts once it is
// published, times out naming what is missing, ends with 128 + signal when
// stopped while waiting, and leaves the rendezvous with its status (a
// failed task's address withdrawn). The test plays the launcher's loop.
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "slipway/core/plan.hpp"
#include "../../lib/local_plan.hpp"
#include "slipway/core/topology.hpp"
#include "slipway/launch/inline_tasks.hpp"
#include "slipway/launch/unit_tracker.hpp"
#include "slipway/rendezvous/server.hpp"
#include "slipway/rendezvous/token.hpp"

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

// The launcher's part: a real server whose observer hands key changes to
// the tasks, output polling, reaping.
struct Launcher {
  explicit Launcher(const core::Plan& p, std::chrono::milliseconds wire_timeout = 10s)
      : plan(p), logs(fs::temp_directory_path() / ("slipway-inline-" + std::to_string(getpid()))) {
    fs::create_directories(logs);
    rendezvous::ServerOptions options;
    options.token = rendezvous::generate_token();
    options.observed_key_prefix = "addr/";
    options.on_event = [this](const rendezvous::Event& e) {
      if (e.kind != rendezvous::EventKind::key_changed) return;
      std::lock_guard lock(mutex);
      keys.push_back(e.key);
    };
    server = std::make_unique<rendezvous::Server>(options);
    server->start();
    launch::InlineTaskOptions inline_options;
    inline_options.log_dir = logs.string();
    inline_options.advertise_host = "127.0.0.1";
    inline_options.wire_timeout = wire_timeout;
    inline_options.grace = 1s;
    tasks = std::make_unique<launch::InlineTasks>(plan, *server, inline_options);
  }
  ~Launcher() {
    tasks.reset();
    server->stop();
    fs::remove_all(logs);
  }

  pid_t start(const std::string& node) {
    return tasks->start(task_index(plan, node), 0, {"SLIPWAY_RDZV=" + server->endpoint()});
  }

  // Turns the loop until `id` has ended (at most 20 s); returns its status.
  base::ExitStatus run_until_ended(pid_t id) {
    const auto give_up = std::chrono::steady_clock::now() + 20s;
    while (!ended.count(id)) {
      REQUIRE(std::chrono::steady_clock::now() < give_up);
      std::vector<pollfd> fds;
      tasks->watch(fds);
      ::poll(fds.data(), fds.size(), 20);
      tasks->watched(fds.data(), fds.size());
      std::vector<std::string> changed;
      {
        std::lock_guard lock(mutex);
        changed.swap(keys);
      }
      for (const auto& key : changed) tasks->key_changed(key);
      int status = 0;
      pid_t pid;
      while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        tasks->reaped(pid, base::ExitStatus::from_wait_status(status));
      }
      for (const auto& [task, exit] : tasks->take_ended()) ended[task] = exit;
    }
    return ended.at(id);
  }

  const core::Plan& plan;
  fs::path logs;
  std::mutex mutex;
  std::vector<std::string> keys;
  std::unique_ptr<rendezvous::Server> server;
  std::unique_ptr<launch::InlineTasks> tasks;
  std::map<pid_t, base::ExitStatus> ended;
};

}  // namespace

TEST_CASE("inline tasks: plain tasks run inline, colocated/mpi/horovod ones do not",
          "[inline]") {
  auto plan = local_plan_of(R"(
[program]
name = "kinds"
[node.plain]
command = "true"
[node.mpi]
command = "true"
framework = "mpi"
[node.x]
command = "true"
colocate = "g"
[node.y]
command = "true"
colocate = "g"
)");
  for (const auto& unit : launch::launch_units(plan)) {
    INFO(unit.name);
    CHECK(launch::InlineTasks::can_run(plan, unit) == (unit.name == "plain.0"));
  }
}

TEST_CASE("inline tasks: a task waits for its peer's address, then starts with it",
          "[inline]") {
  auto plan = local_plan_of(kPair);
  Launcher l(plan);
  pid_t a = l.start("a");
  CHECK(a > launch::kMaxPid);
  CHECK(l.tasks->deadline().has_value());  // waiting for b's address
  pid_t b = l.start("b");
  CHECK(l.run_until_ended(b).success());
  CHECK(l.run_until_ended(a).success());
  auto address = l.server->get("addr/b/0/p");
  REQUIRE(address);  // b finished with status 0: its address stays
  std::string log = read_file(l.logs / "a.0.log");
  CHECK(log.rfind("=== slipway: a.0 attempt 0 on ", 0) == 0);
  CHECK(log.find("a got " + *address) != std::string::npos);
  CHECK(read_file(l.logs / "b.0.log").find("b runs\n") != std::string::npos);
  auto members = l.server->members();
  REQUIRE(members.size() == 2);
  for (const auto& m : members) {
    CHECK(m.state == rendezvous::MemberState::left);
    CHECK(m.exit_status == 0);
    CHECK(m.identity.pid != getpid());  // the command's pid, not the launcher's
  }
}

TEST_CASE("inline tasks: a failed task's address is withdrawn", "[inline]") {
  auto plan = local_plan_of(kPair);
  setenv("B_EXIT", "3", 1);
  Launcher l(plan);
  pid_t b = l.start("b");
  auto status = l.run_until_ended(b);
  unsetenv("B_EXIT");
  CHECK(status.code == 3);
  CHECK_FALSE(l.server->get("addr/b/0/p"));
  auto members = l.server->members();
  REQUIRE(members.size() == 1);
  CHECK(members[0].exit_status == 3);
}

TEST_CASE("inline tasks: waiting past the wire timeout fails the task naming the address",
          "[inline]") {
  auto plan = local_plan_of(kPair);
  Launcher l(plan, 300ms);
  // Its message goes to stderr: catch it in a file.
  fs::path err = l.logs / "stderr";
  int saved = dup(STDERR_FILENO);
  int file = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(file, STDERR_FILENO);
  pid_t a = l.start("a");
  auto status = l.run_until_ended(a);
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(file);
  CHECK(status.code == 1);
  std::string text = read_file(err);
  CHECK(text.find("a.0: slipway: timed out after 0 s waiting for the address of b.0 port 'p'") !=
        std::string::npos);
  CHECK(l.server->members().at(0).exit_status == 1);
}

TEST_CASE("inline tasks: a signal to a waiting task ends it with 128 + signal", "[inline]") {
  auto plan = local_plan_of(kPair);
  Launcher l(plan);
  pid_t a = l.start("a");
  l.tasks->signal(a, SIGUSR1);  // not a stop: it keeps waiting
  CHECK(l.tasks->take_ended().empty());
  l.tasks->signal(a, SIGTERM);
  auto ended = l.tasks->take_ended();
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].first == a);
  CHECK(ended[0].second.code == 128 + SIGTERM);
  CHECK_FALSE(l.tasks->owns(a));
}
