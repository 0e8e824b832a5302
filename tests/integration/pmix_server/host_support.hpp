// Helpers for the single-process PMIx server tests: a plan from topology
// text on one test host, and real client processes (Open MPI programs or
// the PMIx probe) started with the variables the server hands out.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "slipway/core/plan.hpp"
#include "pmix/in_process_control_plane.hpp"
#include "slipway/pmix/server_host.hpp"

namespace slipway::pmix::testing {

// Parses `toml` and plans it on `hosts` test hosts of 16 CPUs each
// ("node-a", "node-b", ...). Fails the test on any diagnostic.
core::Plan plan_of(const std::string& toml, int hosts = 1);

struct Client {
  std::uint32_t rank = 0;
  pid_t pid = -1;
  std::string output_path;
  int exit_code = -1;  // shell code once reaped
  std::string output() const;
};

// Starts `argv` once per rank in `ranks`, each as a client of `host`
// (add_client with the link from `link_for`), stdout+stderr to a file in
// `output_dir`.
std::vector<Client> start_clients(ServerHost& host, const std::string& output_dir,
                                  const std::vector<std::uint32_t>& ranks,
                                  const std::vector<std::string>& argv,
                                  const std::function<std::shared_ptr<Backend>(std::uint32_t)>& link_for,
                                  const std::map<std::string, std::string>& extra_env = {});

// Waits for every client (up to `seconds`, then SIGKILLs what is left).
void wait_all(std::vector<Client>& clients, int seconds = 90);

// The lines of every client's output that contain `needle`.
std::vector<std::string> lines_with(const std::vector<Client>& clients, const std::string& needle);

// Every client's output, each behind a "--- rank R (exit E)" line.
std::string all_output(const std::vector<Client>& clients);

// One server for the world planned from `toml` (instance "t"), hosting
// `local` ranks, backed by an in-process control plane in which the test
// plays the other agents' members.
struct Scenario {
  Scenario(const std::string& toml, std::vector<std::uint32_t> local, ServerHostOptions options = {});
  ~Scenario();  // removes the clients' output files
  const MpiWorld& world() const { return host->world(); }
  // Starts `argv` as each of `ranks` (local ones), with Open MPI's
  // direct-launch settings and `extra_env`.
  std::vector<Client> start(const std::vector<std::uint32_t>& ranks, const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& extra_env = {});

  InProcessControlPlane plane;
  std::unique_ptr<ServerHost> host;
  std::string output_dir;
};

}  // namespace slipway::pmix::testing
