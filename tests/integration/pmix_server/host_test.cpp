// The PMIx server host with real clients, in one process: every rank is a
// client of this test's server (as when an agent runs a colocated world),
// backed by the in-process control plane; remote members are played by the
// test through that control plane. Open MPI programs and a plain PMIx
// client (pmix_probe.c) are the clients.
#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include "host_support.hpp"

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

// Waits until the test's agent has entered a control-plane fence.
void wait_for_fence(InProcessControlPlane& plane) {
  for (int i = 0; i < 500 && plane.pending_fences() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(plane.pending_fences() == 1);
}

}  // namespace

TEST_CASE("host: an Open MPI program initialises, allreduces and finalizes as four ranks of one server",
          "[pmix][mpi]") {
  Scenario s(kFourRanks, {0, 1, 2, 3});
  auto clients = s.start({0, 1, 2, 3}, {SLIPWAY_MPI_ALLREDUCE});
  wait_all(clients);
  INFO(all_output(clients));
  for (const auto& c : clients) CHECK(c.exit_code == 0);
  CHECK(lines_with(clients, "of 4 app 0 on ").size() == 4);
  CHECK(lines_with(clients, "sum 10 ok").size() == 4);
}

TEST_CASE("host: clients read size, ranks, local peers, app numbers and hostnames", "[pmix]") {
  Scenario s(kFourRanks, {0, 1, 2, 3});
  auto clients = s.start({0, 1, 2, 3}, {SLIPWAY_PMIX_PROBE, "info"});
  wait_all(clients);
  INFO(all_output(clients));
  for (const auto& c : clients) {
    CHECK(c.exit_code == 0);
    std::string expected = "rank " + std::to_string(c.rank) + " size 4 local_size 4 local_rank " +
                           std::to_string(c.rank) + " node_rank " + std::to_string(c.rank) +
                           " appnum 0 apps 1 nodes 1 peers 0,1,2,3 host node-a last_host node-a";
    CHECK(lines_with({c}, expected).size() == 1);
    CHECK(lines_with({c}, "nspace " + s.world().nspace() + " ").size() == 1);
  }
  CHECK(lines_with(clients, "fence SUCCESS").size() == 4);
}

TEST_CASE("host: a server's local peers are its own ranks only", "[pmix]") {
  Scenario s(kFourRanks, {1, 3});
  std::thread remote([&] {
    // Play the agents of ranks 0 and 2 in the probes' fence.
    wait_for_fence(s.plane);
    FenceCall call{"pmix/" + s.world().nspace() + "/fence/all/1", s.world().member_ranges(s.world().all_ranks()), true, "", {}};
    for (std::uint32_t r : {0u, 2u}) s.plane.member("mpi", r)->fence(call, [](FenceReply) {});
  });
  auto clients = s.start({1, 3}, {SLIPWAY_PMIX_PROBE, "info"});
  wait_all(clients);
  remote.join();
  INFO(all_output(clients));
  CHECK(lines_with(clients, "rank 1 size 4 local_size 2 local_rank 0 node_rank 0 appnum 0 apps 1 nodes 1 peers 1,3").size() == 1);
  CHECK(lines_with(clients, "rank 3 size 4 local_size 2 local_rank 1 node_rank 1 appnum 0 apps 1 nodes 1 peers 1,3").size() == 1);
  CHECK(lines_with(clients, "fence SUCCESS").size() == 2);
}

TEST_CASE("host: MPMD: two mpi nodes are two applications of one MPI world", "[pmix][mpi]") {
  Scenario s(R"(
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
)", {0, 1, 2, 3, 4});
  auto clients = s.start({0, 1, 2, 3, 4}, {SLIPWAY_MPI_ALLREDUCE});
  wait_all(clients);
  INFO(all_output(clients));
  for (const auto& c : clients) CHECK(c.exit_code == 0);
  CHECK(lines_with(clients, "of 5 app 0 on ").size() == 2);
  CHECK(lines_with(clients, "of 5 app 1 on ").size() == 3);
  CHECK(lines_with(clients, "sum 15 ok").size() == 5);
}

TEST_CASE("host: a key published by one node is looked up by another", "[pmix]") {
  Scenario s(R"(
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
)", {0, 1, 2});
  // The lookup starts first and waits for the key.
  auto lookup = s.start({1}, {SLIPWAY_PMIX_PROBE, "lookup", "service-port"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto publish = s.start({0}, {SLIPWAY_PMIX_PROBE, "publish", "service-port", "tcp://10.0.0.7:4242"});
  wait_all(publish);
  wait_all(lookup);
  INFO(all_output(publish) + all_output(lookup));
  CHECK(publish[0].exit_code == 0);
  CHECK(lookup[0].exit_code == 0);
  CHECK(lines_with(lookup, "lookup service-port = tcp://10.0.0.7:4242 from " + s.world().nspace() + " rank 0").size() == 1);
  // Another node publishing the same key is refused; the first value stays.
  auto rival = s.start({2}, {SLIPWAY_PMIX_PROBE, "publish", "service-port", "tcp://10.0.0.8:1"});
  wait_all(rival);
  INFO(all_output(rival));
  CHECK(rival[0].exit_code == 1);
  CHECK(lines_with(rival, "publish service-port DUPLICATE KEY").size() == 1);
}

TEST_CASE("host: a fence whose member dies elsewhere returns an error instead of hanging", "[pmix]") {
  // Ranks 0..2 are ours; rank 3 (mpi.3) lives in another agent that dies
  // before entering the fence.
  Scenario s(kFourRanks, {0, 1, 2});
  auto clients = s.start({0, 1, 2}, {SLIPWAY_PMIX_PROBE, "fence-nodata"});
  wait_for_fence(s.plane);  // our agent is in, waiting for mpi.3
  s.plane.end_member(MemberEnded{"mpi", 3, true, 0, "connection lost"});
  wait_all(clients, 30);
  INFO(all_output(clients));
  for (const auto& c : clients) CHECK(c.exit_code == 1);  // the fence failed, reported
  CHECK(lines_with(clients, "fence-nodata PROC TERMINATED WITHOUT SYNC").size() == 3);
}

TEST_CASE("host: a fence over a member that has already ended fails at once", "[pmix]") {
  Scenario s(kFourRanks, {0, 1, 2});
  s.plane.end_member(MemberEnded{"mpi", 3, false, 2, ""});
  auto clients = s.start({0, 1, 2}, {SLIPWAY_PMIX_PROBE, "fence-nodata"});
  wait_all(clients, 30);
  INFO(all_output(clients));
  CHECK(lines_with(clients, "fence-nodata PROC TERMINATED WITHOUT SYNC").size() == 3);
}

TEST_CASE("host: a peer ending abnormally elsewhere raises PMIX_EVENT_PROC_TERMINATED here", "[pmix]") {
  Scenario s(kFourRanks, {0, 1, 2});
  auto clients = s.start({0, 1, 2}, {SLIPWAY_PMIX_PROBE, "event"});
  // Play mpi.3: take part in the probes' first fence, then exit with 5.
  wait_for_fence(s.plane);
  auto remote = s.plane.member("mpi", 3);
  FenceCall call{"pmix/" + s.world().nspace() + "/fence/all/1", s.world().member_ranges(s.world().all_ranks()), false, "", {}};
  std::promise<FenceReply> entered;
  remote->fence(call, [&](FenceReply r) { entered.set_value(std::move(r)); });
  REQUIRE(entered.get_future().get().status == BackendStatus::ok);
  s.plane.end_member(MemberEnded{"mpi", 3, false, 5, ""});
  wait_all(clients, 60);
  INFO(all_output(clients));
  for (const auto& c : clients) CHECK(c.exit_code == 0);
  CHECK(lines_with(clients, "event proc-terminated rank 3").size() == 3);
}

TEST_CASE("host: abort is reported naming the task and releases the aborting client", "[pmix]") {
  std::mutex mutex;
  std::vector<std::string> logged;
  ServerHostOptions options;
  options.log = [&](const std::string& line) {
    std::lock_guard lock(mutex);
    logged.push_back(line);
  };
  Scenario s(kFourRanks, {0, 1, 2, 3}, options);
  auto clients = s.start({0}, {SLIPWAY_PMIX_PROBE, "abort"});
  wait_all(clients, 30);
  INFO(all_output(clients));
  CHECK(clients[0].exit_code == 7);  // PMIx_Abort returned; the probe exits with the status
  std::lock_guard lock(mutex);
  REQUIRE(logged.size() == 1);
  CHECK(logged[0] == "mpi.0 (MPI rank 0) aborted the MPI world with status 7: probe asked to abort");
}
