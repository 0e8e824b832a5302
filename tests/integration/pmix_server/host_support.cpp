// Test helpers for the PMIx server host (host_support.hpp).
#include "host_support.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "slipway/core/topology.hpp"
#include "slipway/base/environment.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/pmix/mpi_task_hooks.hpp"


namespace slipway::pmix::testing {

core::Plan plan_of(const std::string& toml, int hosts) {
  auto parsed = core::parse_topology(toml, "/tmp/pmix-test.toml");
  for (const auto& d : parsed.diagnostics) UNSCOPED_INFO(d.message);
  REQUIRE(parsed.ok());
  core::Allocation allocation;
  for (int i = 0; i < hosts; ++i) {
    core::Host h;
    h.name = std::string("node-") + static_cast<char>('a' + i);
    h.address = "127.0.0.1";
    h.cpus = 16;
    allocation.hosts.push_back(h);
  }
  auto planned = core::make_plan(*parsed.program, allocation);
  for (const auto& e : planned.errors) UNSCOPED_INFO(e.node + ": " + e.message);
  REQUIRE(planned.ok());
  return *planned.plan;
}

std::string Client::output() const {
  std::ifstream in(output_path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<Client> start_clients(ServerHost& host, const std::string& output_dir,
                                  const std::vector<std::uint32_t>& ranks,
                                  const std::vector<std::string>& argv,
                                  const std::function<std::shared_ptr<Backend>(std::uint32_t)>& link_for,
                                  const std::map<std::string, std::string>& extra_env) {
  std::vector<Client> clients;
  for (std::uint32_t rank : ranks) {
    core::EnvMap added = host.add_client(rank, link_for(rank));
    for (const auto& [k, v] : extra_env) added[k] = v;
    std::vector<std::string> set;
    for (const auto& [k, v] : added) set.push_back(k + "=" + v);
    const std::vector<std::string> env = base::environment_with(set);

    Client c;
    c.rank = rank;
    c.output_path = output_dir + "/rank" + std::to_string(rank) + ".out";
    base::UniqueFd out(::open(c.output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    REQUIRE(out);
    base::SpawnOptions options;
    options.argv = argv;
    options.env = env;
    options.stdout_fd = out.get();
    options.stderr_fd = out.get();
    options.new_process_group = true;
    options.parent_death_signal = SIGKILL;
    c.pid = base::spawn(options);
    clients.push_back(std::move(c));
  }
  return clients;
}

void wait_all(std::vector<Client>& clients, int seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::size_t left = clients.size();
  while (left > 0) {
    for (auto& c : clients) {
      int status = 0;
      if (c.exit_code < 0 && waitpid(c.pid, &status, WNOHANG) == c.pid) {
        c.exit_code = base::ExitStatus::from_wait_status(status).shell_code();
        --left;
      }
    }
    if (left == 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      for (auto& c : clients) {
        if (c.exit_code < 0) {
          UNSCOPED_INFO("rank " << c.rank << " still running after " << seconds << " s; killed:\n"
                                << c.output());
          kill(-c.pid, SIGKILL);
        }
      }
      deadline += std::chrono::seconds(10);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::vector<std::string> lines_with(const std::vector<Client>& clients, const std::string& needle) {
  std::vector<std::string> out;
  for (const auto& c : clients) {
    std::istringstream lines(c.output());
    for (std::string line; std::getline(lines, line);) {
      if (line.find(needle) != std::string::npos) out.push_back(line);
    }
  }
  return out;
}

std::string all_output(const std::vector<Client>& clients) {
  std::string out;
  for (const auto& c : clients) {
    out += "--- rank " + std::to_string(c.rank) + " (exit " + std::to_string(c.exit_code) + ")\n" + c.output();
  }
  return out;
}

Scenario::Scenario(const std::string& toml, std::vector<std::uint32_t> local, ServerHostOptions options) {
  char dir_template[] = "/tmp/slipway-pmix-test-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  output_dir = dir_template;
  auto world = MpiWorld::from_plan(plan_of(toml), "t");
  REQUIRE(world);
  host = std::make_unique<ServerHost>(std::move(*world), std::move(local), std::move(options));
}

Scenario::~Scenario() {
  std::error_code ignored;
  std::filesystem::remove_all(output_dir, ignored);
}

std::vector<Client> Scenario::start(const std::vector<std::uint32_t>& ranks,
                                    const std::vector<std::string>& argv,
                                    const std::map<std::string, std::string>& extra_env) {
  // One server per process here: no other agent shares these directories.
  auto env = slipway::pmix::open_mpi_environment("/tmp", "/dev/shm");
  for (const auto& [k, v] : extra_env) env[k] = v;
  auto link_for = [this](std::uint32_t rank) {
    const auto& p = world().procs()[rank];
    return plane.member(p.node, p.replica);
  };
  return start_clients(*host, output_dir, ranks, argv, link_for, {env.begin(), env.end()});
}

}  // namespace slipway::pmix::testing
