// Topologies that are well formed but could never start are refused with a
// location (issue 11, item 16 and item 20): tasks per program, plan size,
// exec argument/environment size, the node count, and how names from the
// file appear in messages.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core_test_support.hpp"
#include "slipway/core/environment.hpp"
#include "slipway/core/plan_json.hpp"

using namespace slipway::core;
using slipway::core::test::parse_errors;
using slipway::core::test::parse_ok;

namespace {

std::string all(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string handled(std::uint32_t replicas) {
  return "[program]\nname = \"p\"\n\n"
         "[node.server]\ncommand = \"srv\"\nreplicas = " +
         std::to_string(replicas) +
         "\nports = [\"rpc\"]\n\n"
         "[node.client]\ncommand = \"cli\"\nhandles = [\"server\"]\n";
}

}  // namespace

TEST_CASE("a handled node too large for one variable is reached through its address file", "[core][validate][scale]") {
  CHECK(address_file_notes(parse_ok(handled(2048))).empty());
  const Program big = parse_ok(handled(20000));
  const auto notes = address_file_notes(big);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "node 'client' handles 'server' (up to 20000 replicas): when more than 2048 run, its "
                    "tasks get no SLIPWAY_ADDR_SERVER_RPC and read the list from SLIPWAY_ADDR_FILE_SERVER_RPC "
                    "(one address per line)");
}

TEST_CASE("paddle and tensorflow address lists are bounded too", "[core][validate][scale]") {
  const auto paddle = parse_errors(
      "[program]\nname = \"p\"\n[node.trainer]\ncommand = \"t\"\nreplicas = 7000\nframework = \"paddle\"\n");
  INFO(all(paddle));
  REQUIRE(paddle.size() == 1);
  CHECK_THAT(paddle[0], Catch::StartsWith("t.toml:5:12: 'replicas' in node 'trainer': PADDLE_TRAINER_ENDPOINTS would be up to"));
  const auto tf = parse_errors(
      "[program]\nname = \"p\"\n[node.worker]\ncommand = \"t\"\nreplicas = 3000\nframework = \"tensorflow\"\n"
      "[node.ps]\ncommand = \"t\"\nreplicas = 3000\nframework = \"tensorflow\"\n");
  INFO(all(tf));
  REQUIRE(tf.size() == 1);
  CHECK_THAT(tf[0], Catch::StartsWith("t.toml:5:12: 'replicas' in node 'worker': TF_CONFIG would be up to"));
}

TEST_CASE("more tasks than a plan may hold are refused at the largest node", "[core][validate][scale]") {
  std::string text = "[program]\nname = \"p\"\n";
  for (int i = 0; i < 10; ++i) {
    text += "[node.n" + std::to_string(i) + "]\ncommand = \"x\"\nreplicas = 100000\n";
  }
  text += "[node.extra]\ncommand = \"x\"\n";  // 1,000,000 is the limit itself
  const auto errors = parse_errors(text);
  INFO(all(errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "t.toml:5:12: the program has up to 1000001 tasks (every node at its maximum replicas), "
                     "more than the limit of 1000000 per program; lower 'replicas' (node 'n0' has 100000)");
}

TEST_CASE("a plan larger than the agents read is refused with its size", "[core][validate][scale]") {
  // 9 nodes of 100,000 replicas: 900,000 tasks, within the task limit, but
  // about 300 MiB of plan JSON.
  std::string text = "[program]\nname = \"p\"\n";
  for (int i = 0; i < 9; ++i) {
    text += "[node.n" + std::to_string(i) + "]\ncommand = \"x\"\nreplicas = 100000\n";
  }
  const auto errors = parse_errors(text);
  INFO(all(errors));
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::StartsWith("t.toml:5:12: the plan of this program would take up to "));
  CHECK_THAT(errors[0], Catch::Contains("the 256 MiB plan file every task agent reads"));
}

TEST_CASE("the plan size bound holds for a real plan", "[core][validate][scale]") {
  const Program program = parse_ok(
      "[program]\nname = \"p\"\n[node.learner]\ncommand = \"x\"\nreplicas = 40\ngpus = 1\n"
      "ports = [\"a\", \"bb\"]\nframework = \"torch\"\n");
  const PlanResult planned = make_plan(program, slipway::core::test::hosts(5, 64, 8));
  REQUIRE(planned.ok());
  Plan no_tasks = *planned.plan;
  no_tasks.tasks.clear();
  const std::size_t tasks_bytes =
      plan_to_json(*planned.plan).dump(2).size() - plan_to_json(no_tasks).dump(2).size();
  CHECK(tasks_bytes <= 40 * task_json_bytes_bound(program.nodes[0]));
  CHECK(tasks_bytes * 2 >= 40 * task_json_bytes_bound(program.nodes[0]));  // and is not far off
}

TEST_CASE("arguments and environment over the exec budget are refused at the node", "[core][validate][scale]") {
  std::string text = "[program]\nname = \"p\"\n[node.big]\ncommand = \"x\"\n[node.big.env]\n";
  const std::string value(60000, 'v');
  for (int i = 0; i < 20; ++i) text += "V" + std::to_string(i) + " = \"" + value + "\"\n";
  const auto errors = parse_errors(text);
  INFO(all(errors).substr(0, 2000));
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::StartsWith("t.toml:3:7: a task of node 'big' would be given up to "));
  CHECK_THAT(errors[0], Catch::Contains("more than the 1048576 bytes slipway allows"));
}

TEST_CASE("more than 10000 nodes is reported as such, at the first node over", "[core][validate][scale]") {
  std::string text = "[program]\nname = \"p\"\n";
  for (int i = 0; i <= 10000; ++i) text += "[node.n" + std::to_string(i) + "]\ncommand = \"x\"\n";
  const auto errors = parse_errors(text);
  INFO(all(errors).substr(0, 2000));
  REQUIRE(errors.size() == 1);
  // Node n10000 (the 10,001st) is at line 3 + 2 * 10000.
  CHECK(errors[0] == "t.toml:20003:7: the program has 10001 nodes, more than the limit of 10000 (this is "
                     "node 10001); use fewer nodes with more replicas each");
}

TEST_CASE("names from the file are cut and escaped in messages", "[core][validate]") {
  const std::string key(100000, 'k');
  const auto errors = parse_errors("[program]\nname = \"p\"\n[node.a]\ncommand = \"x\"\n" + key + " = 1\n"
                                   "\"bad\\nkey\" = 2\n");
  INFO(all(errors).substr(0, 2000));
  REQUIRE(errors.size() == 2);
  CHECK(errors[0] == "t.toml:5:1: unknown key '" + std::string(64, 'k') +
                         "...(100000 bytes)' in node 'a'; see docs/topology.md for the keys it accepts");
  CHECK(errors[1].find('\n') == std::string::npos);
  CHECK_THAT(errors[1], Catch::Contains("unknown key 'bad\\x0akey'"));
}

TEST_CASE("a FIFO is refused without waiting for a writer", "[core][parse]") {
  const auto dir = std::filesystem::temp_directory_path() / ("slipway-fifo-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = (dir / "topology.toml").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const TopologyResult result = load_topology(fifo);
  std::filesystem::remove_all(dir);
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(format_diagnostic(result.diagnostics[0]) ==
        fifo + ": cannot open: is a FIFO, not a regular file; give a file, or - to read standard input");
}

TEST_CASE("slipway run's allocation oversubscribes this machine, and says so", "[core][plan]") {
  const Program wide = parse_ok("[program]\nname = \"p\"\n[node.w]\ncommand = \"x\"\ncpus = 1000\nreplicas = 1000\n");
  const LocalRunAllocation two = local_run_allocation(wide, LocalAllocationOptions{2, std::nullopt, std::nullopt, std::nullopt});
  REQUIRE(two.allocation.hosts.size() == 2);
  CHECK(two.allocation.hosts[0].cpus == 500000);
  CHECK(two.allocation.hosts[1].cpus == 500000);
  CHECK_THAT(two.note, Catch::StartsWith("note: the program asks for 1000000 cpus and this machine has ") &&
                           Catch::EndsWith("; running oversubscribed (--cpus-per-host to plan otherwise)"));
  CHECK(make_plan(wide, two.allocation).ok());

  const LocalRunAllocation fixed = local_run_allocation(wide, LocalAllocationOptions{1, 8, std::nullopt, std::nullopt});
  CHECK(fixed.note.empty());
  CHECK(fixed.allocation.hosts[0].cpus == 8);
  CHECK_FALSE(make_plan(wide, fixed.allocation).ok());

  const Program one = parse_ok("[program]\nname = \"p\"\n[node.w]\ncommand = \"x\"\n");
  const LocalRunAllocation small = local_run_allocation(one);
  CHECK(small.note.empty());
  CHECK(small.allocation.hosts == local_allocation().hosts);
}
