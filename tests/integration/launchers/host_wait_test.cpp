// The launcher loop's wait for a host (WaitForHost): a unit whose launcher
// has no host for it now but is getting one (a satellite job under Slurm)
// waits on its attempt, with no carrier, until the launcher says the host
// came (it starts then, on the same attempt), that it will not (it ends as
// a unit with no room: a failure within max_retries), or the program
// stops (it ends as stopped). A real in-process rendezvous on loopback; the
// carriers are `sh -c 'exit N'`, the agent a rendezvous client of this
// process.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "launcher_loop.hpp"
#include "loop_fixture.hpp"
#include "slipway/base/poll_source.hpp"
#include "slipway/base/process.hpp"
#include "slipway/rendezvous/client.hpp"

using namespace slipway;
using launch::UnitHandle;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

// What the launcher learns about the host, 300 ms into the wait.
enum class Host { comes, never, program_stopped };

constexpr auto kWait = 300ms;

// Brings the loop round when the wait is over.
class Timer : public base::PollSource {
 public:
  std::optional<Clock::time_point> at;
  void watch(std::vector<pollfd>&) override {}
  void watched(const pollfd*, std::size_t) override {}
  std::optional<Clock::time_point> deadline() const override { return at; }
};

class HostLater : public launch::LauncherLoop {
 public:
  HostLater(core::Plan plan, launch::RunDirectory dir, Host host)
      : LauncherLoop(std::move(plan), std::move(dir), std::chrono::milliseconds(500)), host_(host) {
    add_source(timer_);
    listen(turns_);
  }
  std::vector<int> starts;  // the attempt of every start_units call
  Clock::time_point waited_from{}, started_again{};

 protected:
  // Attempt 0 fails before its task joins; attempt 1 finds no host, then
  // (once the host came) joins and succeeds.
  UnitHandle start_units(const std::vector<std::size_t>& units, int attempt,
                         const std::vector<std::string>&) override {
    REQUIRE(units.size() == 1);
    starts.push_back(attempt);
    base::SpawnOptions spawn;
    if (attempt == 0) {
      spawn.argv = {"/bin/sh", "-c", "exit 3"};
      return UnitHandle::of_process(base::spawn(spawn));
    }
    if (starts.size() == 2) {
      waited_from = Clock::now();
      timer_.at = waited_from + kWait;
      throw launch::WaitForHost("waits for a host in this test");
    }
    started_again = Clock::now();
    rendezvous::Identity id{"worker", 0, static_cast<std::uint32_t>(task_attempt(attempt)), "", 0};
    client_ = rendezvous::Client::connect(control().endpoint(), control().token(), id);
    spawn.argv = {"/bin/sh", "-c", "exit 0"};
    return UnitHandle::of_process(base::spawn(spawn));
  }

  // Once every turn (LoopListener::turn_done), as the Slurm controller's
  // satellite jobs are looked at.
  void turn_done() {
    if (!timer_.at || Clock::now() < *timer_.at) return;
    timer_.at.reset();
    REQUIRE(waiting_for_host(0));
    switch (host_) {
      case Host::comes: host_found(0); break;
      case Host::never: host_not_found(0, "no host came in this test"); break;
      case Host::program_stopped: ::kill(::getpid(), SIGTERM); break;
    }
  }

 private:
  struct Turns final : launch::LoopListener {
    explicit Turns(HostLater& owner) : loop(owner) {}
    void turn_done() override { loop.turn_done(); }
    HostLater& loop;
  };
  Host host_;
  Timer timer_;
  Turns turns_{*this};
  std::unique_ptr<rendezvous::Client> client_;
};

struct Ran {
  launch::LaunchOutcome outcome;
  std::vector<int> starts;
  std::chrono::milliseconds waited{0};
};

Ran run(Host host) {
  const testing::LoopFixture fixture(R"(
[program]
name = "host-later"

[node.worker]
command = ["true"]
max_retries = 1
)", "host-later");
  HostLater loop(fixture.plan(), fixture.run_dir(), host);
  Ran ran;
  ran.outcome = loop.run({});
  ran.starts = loop.starts;
  if (loop.started_again > loop.waited_from) {
    ran.waited = std::chrono::duration_cast<std::chrono::milliseconds>(loop.started_again - loop.waited_from);
  }
  return ran;
}

}  // namespace

TEST_CASE("a unit waiting for a host starts on the same attempt once the host came") {
  const Ran ran = run(Host::comes);
  CHECK(ran.starts == std::vector<int>{0, 1, 1});
  CHECK(ran.waited >= kWait);
  CHECK(ran.outcome.program_status == 0);
  REQUIRE(ran.outcome.units.size() == 1);
  CHECK(ran.outcome.units[0].state == launch::UnitState::Succeeded);
  CHECK(ran.outcome.units[0].attempts == 2);  // the wait was no attempt of its own
}

TEST_CASE("a unit whose host will not come ends as one with no room: a failure within max_retries") {
  const Ran ran = run(Host::never);
  CHECK(ran.starts == std::vector<int>{0, 1});
  CHECK(ran.outcome.program_status == 1);
  CHECK(ran.outcome.message.find("task worker.0 exited with status 127 on attempt 1") != std::string::npos);
  REQUIRE(ran.outcome.units.size() == 1);
  CHECK(ran.outcome.units[0].state == launch::UnitState::Failed);
}

TEST_CASE("a unit waiting for a host when the program stops ends as stopped") {
  const Ran ran = run(Host::program_stopped);
  CHECK(ran.starts == std::vector<int>{0, 1});
  CHECK(ran.outcome.program_status == 128 + SIGTERM);
  REQUIRE(ran.outcome.units.size() == 1);
  CHECK(ran.outcome.units[0].state == launch::UnitState::Stopped);
}
