// The PMIx server host with real clients, in one process: every rank is a
// client of this test's server (as when an agent runs a colocated world),
// backed by the in-process control plane; remote members are played by the
// test through that control plane. Open MPI programs and a plain PMIx
// client (pmix_probe.c) are the clients.
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include "host_support.hpp"
#include "slipway/pmix/in_process_backend.hpp"
#include "slipway/pmix/server_host.hpp"

using namespace slipway;
using namespace slipway::pmix;
using namespace slipway::pmix::testing;

namespace {

const char* kFourRanks = R"(
[program]
name = "pmix-test"
[node.mpi]
command = "true"
replicas = 4
framework = "mpi"
)";

std::string all_output(const std::vector<Client>& clients) {
  std::string out;
  for (const auto& c : clients) out += "--- rank " + std::to_string(c.rank) + " (exit " +
                                       std::to_string(c.exit_code) + ")\n" + c.output();
  return out;
}

struct Fixture {
  InProcessControlPlane plane;
  std::function<std::shared_ptr<Backend>(std::uint32_t)> links_of(const MpiWorld& world) {
    return [this, &world](std::uint32_t rank) {
      const auto& p = world.procs()[rank];
      return plane.member(p.node, p.replica);
    };
  }
};

// Open MPI with its transports limited to what works anywhere.
const std::map<std::string, std::string> kOmpiEnv = {
    {"OMPI_MCA_btl", "self,vader,tcp"}, {"OMPI_MCA_pml", "ob1"}, {"OMPI_MCA_schizo", "^orte"}, {"OMPI_MCA_ess", "pmi"}};

}  // namespace

TEST_CASE("pmix host: an Open MPI program initialises, allreduces and finalizes as four ranks of one server",
          "[pmix][mpi]") {
  auto plan = plan_of(kFourRanks);
  auto world = MpiWorld::from_plan(plan, "t1");
  REQUIRE(world);
  Fixture f;
  ServerHost host(*world, {0, 1, 2, 3});
  auto clients = start_clients(host, {0, 1, 2, 3}, {SLIPWAY_MPI_ALLREDUCE}, f.links_of(host.world()), kOmpiEnv);
  wait_all(clients);
  INFO(all_output(clients));
  for (const auto& c : clients) CHECK(c.exit_code == 0);
  auto ok = lines_with(clients, "of 4 app 0 on ");
  CHECK(ok.size() == 4);
  CHECK(lines_with(clients, "sum 10 ok").size() == 4);
}

TEST_CASE("pmix host: clients read size, ranks, local peers, app numbers and hostnames", "[pmix]") {
  auto plan = plan_of(kFourRanks);
  auto world = MpiWorld::from_plan(plan, "t2");
  REQUIRE(world);
  Fixture f;
  ServerHost host(*world, {0, 1, 2, 3});
  auto clients = start_clients(host, {0, 1, 2, 3}, {SLIPWAY_PMIX_PROBE, "info"}, f.links_of(host.world()));
  wait_all(clients);
  INFO(all_output(clients));
  for (const auto& c : clients) {
    CHECK(c.exit_code == 0);
    std::string expected = "rank " + std::to_string(c.rank) + " size 4 local_size 4 local_rank " +
                           std::to_string(c.rank) + " node_rank " + std::to_string(c.rank) +
                           " appnum 0 apps 1 nodes 1 peers 0,1,2,3 host node-a last_host node-a";
    CHECK(lines_with({c}, expected).size() == 1);
    CHECK(lines_with({c}, "nspace " + world->nspace() + " ").size() == 1);
  }
  CHECK(lines_with(clients, "fence SUCCESS").size() == 4);
}

TEST_CASE("pmix host: MPMD: two mpi nodes are two applications of one MPI world", "[pmix][mpi]") {
  auto plan = plan_of(R"(
[program]
name = "pmix-mpmd"
[node.left]
command = "true"
replicas = 2
framework = "mpi"
[node.right]
command = "true"
replicas = 3
framework = "mpi"
)");
  auto world = MpiWorld::from_plan(plan, "t3");
  REQUIRE(world);
  Fixture f;
  ServerHost host(*world, {0, 1, 2, 3, 4});
  auto clients = start_clients(host, {0, 1, 2, 3, 4}, {SLIPWAY_MPI_ALLREDUCE}, f.links_of(host.world()), kOmpiEnv);
  wait_all(clients);
  INFO(all_output(clients));
  for (const auto& c : clients) CHECK(c.exit_code == 0);
  CHECK(lines_with(clients, "of 5 app 0 on ").size() == 2);
  CHECK(lines_with(clients, "of 5 app 1 on ").size() == 3);
  CHECK(lines_with(clients, "sum 15 ok").size() == 5);
}

TEST_CASE("pmix host: a key published by one node is looked up by another", "[pmix]") {
  auto plan = plan_of(R"(
[program]
name = "pmix-pub"
[node.server]
command = "true"
framework = "mpi"
[node.client]
command = "true"
framework = "mpi"
[node.rival]
command = "true"
framework = "mpi"
)");
  auto world = MpiWorld::from_plan(plan, "t4");
  REQUIRE(world);
  Fixture f;
  ServerHost host(*world, {0, 1, 2});
  // The lookup starts first and waits for the key.
  auto lookup = start_clients(host, {1}, {SLIPWAY_PMIX_PROBE, "lookup", "service-port"}, f.links_of(host.world()));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto publish = start_clients(host, {0}, {SLIPWAY_PMIX_PROBE, "publish", "service-port", "tcp://10.0.0.7:4242"},
                               f.links_of(host.world()));
  wait_all(publish);
  wait_all(lookup);
  INFO(all_output(publish) + all_output(lookup));
  CHECK(publish[0].exit_code == 0);
  CHECK(lookup[0].exit_code == 0);
  CHECK(lines_with(lookup, "lookup service-port = tcp://10.0.0.7:4242 from " + world->nspace() + " rank 0").size() == 1);
  // Another node publishing the same key is refused; the first value stays.
  auto rival = start_clients(host, {2}, {SLIPWAY_PMIX_PROBE, "publish", "service-port", "tcp://10.0.0.8:1"},
                             f.links_of(host.world()));
  wait_all(rival);
  INFO(all_output(rival));
  CHECK(rival[0].exit_code == 1);
  CHECK(lines_with(rival, "publish service-port DUPLICATE KEY").size() == 1);
}

TEST_CASE("pmix host: a fence whose member dies elsewhere returns an error instead of hanging", "[pmix]") {
  auto plan = plan_of(kFourRanks);
  auto world = MpiWorld::from_plan(plan, "t5");
  REQUIRE(world);
  Fixture f;
  // Ranks 0..2 are ours; rank 3 (mpi.3) lives in another agent that dies
  // before entering the fence.
  ServerHost host(*world, {0, 1, 2});
  auto clients = start_clients(host, {0, 1, 2}, {SLIPWAY_PMIX_PROBE, "fence-nodata"}, f.links_of(host.world()));
  for (int i = 0; i < 200 && f.plane.pending_fences() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(f.plane.pending_fences() == 1);  // our agent is in, waiting for mpi.3
  f.plane.end_member(MemberEnded{"mpi", 3, true, 0, "connection lost"});
  wait_all(clients, 30);
  INFO(all_output(clients));
  for (const auto& c : clients) CHECK(c.exit_code == 1);  // the fence failed, reported
  CHECK(lines_with(clients, "fence-nodata PROC TERMINATED WITHOUT SYNC").size() == 3);
}

TEST_CASE("pmix host: a fence over a member that has already ended fails at once", "[pmix]") {
  auto plan = plan_of(kFourRanks);
  auto world = MpiWorld::from_plan(plan, "t6");
  REQUIRE(world);
  Fixture f;
  f.plane.end_member(MemberEnded{"mpi", 3, false, 2, ""});
  ServerHost host(*world, {0, 1, 2});
  auto clients = start_clients(host, {0, 1, 2}, {SLIPWAY_PMIX_PROBE, "fence-nodata"}, f.links_of(host.world()));
  wait_all(clients, 30);
  INFO(all_output(clients));
  CHECK(lines_with(clients, "fence-nodata PROC TERMINATED WITHOUT SYNC").size() == 3);
}

TEST_CASE("pmix host: a peer ending abnormally elsewhere raises PMIX_EVENT_PROC_TERMINATED here", "[pmix]") {
  auto plan = plan_of(kFourRanks);
  auto world = MpiWorld::from_plan(plan, "t7");
  REQUIRE(world);
  Fixture f;
  ServerHost host(*world, {0, 1, 2});
  auto clients = start_clients(host, {0, 1, 2}, {SLIPWAY_PMIX_PROBE, "event"}, f.links_of(host.world()));
  // Play mpi.3: take part in the probes' first fence, then exit with 5.
  for (int i = 0; i < 200 && f.plane.pending_fences() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto remote = f.plane.member("mpi", 3);
  FenceCall call{"pmix/fence/all/1", world->member_ranges(world->all_ranks()), false, "", {}};
  std::promise<FenceReply> entered;
  remote->fence(call, [&](FenceReply r) { entered.set_value(std::move(r)); });
  REQUIRE(entered.get_future().get().status == BackendStatus::ok);
  f.plane.end_member(MemberEnded{"mpi", 3, false, 5, ""});
  wait_all(clients, 60);
  INFO(all_output(clients));
  for (const auto& c : clients) CHECK(c.exit_code == 0);
  CHECK(lines_with(clients, "event proc-terminated rank 3").size() == 3);
}

TEST_CASE("pmix host: abort is reported naming the task and releases the aborting client", "[pmix]") {
  auto plan = plan_of(kFourRanks);
  auto world = MpiWorld::from_plan(plan, "t8");
  REQUIRE(world);
  Fixture f;
  std::mutex mutex;
  std::vector<std::string> logged;
  ServerHostOptions options;
  options.log = [&](const std::string& line) {
    std::lock_guard lock(mutex);
    logged.push_back(line);
  };
  ServerHost host(*world, {0, 1, 2, 3}, options);
  auto clients = start_clients(host, {0}, {SLIPWAY_PMIX_PROBE, "abort"}, f.links_of(host.world()));
  wait_all(clients, 30);
  INFO(all_output(clients));
  CHECK(clients[0].exit_code == 7);  // PMIx_Abort returned; the probe exits with the status
  std::lock_guard lock(mutex);
  REQUIRE(logged.size() == 1);
  CHECK(logged[0] == "mpi.0 (MPI rank 0) aborted the MPI world with status 7: probe asked to abort");
}
