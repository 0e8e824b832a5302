// The launcher loop hears a unit's carrier end before its agent's loss (an
// srun that reports its killed task before the rendezvous hears the killed
// agent's connection drop): where vanished agents are lost, the unit is
// lost, not a plain failure with the carrier's status; with no verdict in
// time, or a leave heard late, it ends as the carrier or the agent said.
// A real in-process rendezvous on loopback, an agent that is a rendezvous
// client of this process, a carrier that is `sh -c 'exit N'`.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>

#include "launcher_loop.hpp"
#include "loop_fixture.hpp"
#include "slipway/base/process.hpp"
#include "slipway/rendezvous/client.hpp"

using namespace slipway;
using launch::UnitHandle;

namespace {

// What the agent does once its carrier has been reaped.
enum class Agent { drops, stays, leaves_with_3 };

// Its hosts can be lost (HostLosses), and it hears its carrier's end
// (LoopListener), as the Slurm controller does.
class CarrierFirst : public launch::LauncherLoop, private launch::HostLosses, private launch::LoopListener {
 public:
  CarrierFirst(core::Plan plan, launch::RunDirectory dir, Agent agent)
      : LauncherLoop(std::move(plan), std::move(dir), std::chrono::milliseconds(500)), agent_(agent) {
    hear_losses(*this);
    listen(*this);
  }
  int losses = 0;
  std::string lost_reason;

 protected:
  // The agent joins (this process, as the unit's task); then its carrier
  // starts and exits 137 at once, as srun does when its task was killed.
  UnitHandle start_units(const std::vector<std::size_t>& units, int attempt,
                         const std::vector<std::string>&) override {
    REQUIRE(units.size() == 1);
    rendezvous::Identity id{"worker", 0, static_cast<std::uint32_t>(attempt), "", 0};
    client_ = rendezvous::Client::connect(control().endpoint(), control().token(), id);
    base::SpawnOptions spawn;
    spawn.argv = {"/bin/sh", "-c", "exit 137"};
    carrier_ = base::spawn(spawn);
    return UnitHandle::of_process(carrier_);
  }
  // Reaped, before the loop ends its unit: the agent's fate comes after.
  void process_ended(pid_t pid, const base::ExitStatus&) override {
    if (pid != carrier_ || !client_) return;
    if (agent_ == Agent::drops) client_.reset();  // no leave: "connection lost"
    if (agent_ == Agent::leaves_with_3) client_->leave(3);
  }
  bool unit_lost(std::size_t, UnitHandle carrier, const launch::MemberEnded& event) override {
    CHECK(!carrier);  // it ended first
    ++losses;
    lost_reason = event.reason;
    return true;
  }
  std::optional<std::string> no_room_for(std::size_t) override { return std::nullopt; }
  void slot_unhosted(std::size_t, std::size_t) override {}
  void carrier_drained(UnitHandle) override {}

 private:
  Agent agent_;
  pid_t carrier_ = -1;
  std::unique_ptr<rendezvous::Client> client_;
};

struct Ran {
  launch::LaunchOutcome outcome;
  int losses = 0;
  std::string lost_reason;
  std::chrono::milliseconds took{0};
};

Ran run(Agent agent) {
  const testing::LoopFixture fixture(R"(
[program]
name = "carrier-first"

[node.worker]
command = ["true"]
)", "carrier-first");
  CarrierFirst loop(fixture.plan(), fixture.run_dir(), agent);
  const auto start = std::chrono::steady_clock::now();
  Ran ran;
  ran.outcome = loop.run({});
  ran.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  ran.losses = loop.losses;
  ran.lost_reason = loop.lost_reason;
  return ran;
}

}  // namespace

TEST_CASE("a loss heard just after the carrier's end makes the unit lost") {
  const Ran ran = run(Agent::drops);
  CHECK(ran.losses == 1);
  CHECK(ran.lost_reason == "connection lost");
  REQUIRE(ran.outcome.units.size() == 1);
  CHECK(ran.outcome.units[0].state == launch::UnitState::Failed);
  CHECK(ran.outcome.message.find("worker.0 killed by signal 9") != std::string::npos);
}

TEST_CASE("with no verdict on its agent the unit ends with its carrier's exit once the wait is over") {
  const Ran ran = run(Agent::stays);
  CHECK(ran.losses == 0);
  CHECK(ran.outcome.message.find("worker.0 exited with status 137") != std::string::npos);
  CHECK(ran.took >= std::chrono::milliseconds(2000));  // kLossVerdictWait
}

TEST_CASE("a leave heard just after the carrier's end gives the agent's status") {
  const Ran ran = run(Agent::leaves_with_3);
  CHECK(ran.losses == 0);
  CHECK(ran.outcome.message.find("worker.0 exited with status 3") != std::string::npos);
}
