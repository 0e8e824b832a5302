// ServerHost: the PMIx server of one task agent (slipway-exec), on libpmix's
// server interface, backed by the program's control plane (backend.hpp).
// Every agent that runs MPI ranks hosts one; together they serve one
// namespace spanning the whole MPI world (mpi_world.hpp), whatever host or
// Slurm step each rank runs in.
//
// What it serves: job/app/node/proc information; fence with and without
// data collection (a fence of the control plane over the agents hosting
// the participants); direct modex (each rank's data is published as a task
// key at its first commit, a remote server waits for that key); publish /
// lookup / unpublish across nodes (program keys, or task keys with
// PMIX_PERSIST_PROC); connect / disconnect (a fence); abort (reported,
// naming the task; the aborting process then exits and fails its task);
// and, when a world member ends abnormally,
// a PMIX_EVENT_PROC_TERMINATED event to the local clients while pending
// fences and modex requests that need it fail instead of hanging. Spawn is
// not supported (PMIX_ERR_NOT_SUPPORTED). docs/pmix.md has the details.
//
// Contract: one ServerHost per process, ever (libpmix's server is a
// singleton that cannot be restarted once finalized): the constructor
// throws std::runtime_error on a second one, or when libpmix refuses to
// start. Upcalls copy their arguments, post the
// work to the host's own thread and return at once; results go back
// through libpmix's callbacks; no blocking PMIx call runs in an upcall.
// add_client() must be called for each local rank before its process
// starts; fences wait until every local rank has been added. The destructor
// finalizes libpmix and removes the server's temporary directory.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "slipway/core/environment.hpp"
#include "slipway/pmix/backend.hpp"
#include "slipway/pmix/mpi_world.hpp"

namespace slipway::pmix {

struct ServerHostOptions {
  // Parent of the server's private temporary directory; empty: $TMPDIR or
  // /tmp.
  std::string tmpdir_base;
  // How long a direct modex waits for a peer's data when the client gives
  // no PMIX_TIMEOUT.
  std::chrono::milliseconds modex_timeout{std::chrono::minutes(10)};
  // Fence timeout when the client gives no PMIX_TIMEOUT; 0: none (a fence
  // still fails as soon as one of its members ends).
  std::chrono::milliseconds fence_timeout{0};
  // Diagnostics (one line, no newline); default: stderr, "slipway-exec:
  // pmix: " prefixed.
  std::function<void(const std::string&)> log;
  // Also log every collective, direct modex and publication (what the
  // hook turns on with SLIPWAY_PMIX_VERBOSE=1).
  bool verbose = false;
};

class ServerHost {
 public:
  // Starts libpmix's server and registers the world's namespace with
  // `local_ranks` as this server's local peers.
  ServerHost(MpiWorld world, std::vector<std::uint32_t> local_ranks, ServerHostOptions options = {});
  ~ServerHost();
  ServerHost(const ServerHost&) = delete;
  ServerHost& operator=(const ServerHost&) = delete;

  const MpiWorld& world() const;

  // Makes `rank` (one of the local ranks) a client: `link` is the control
  // plane as that rank's task; returns the variables its process needs
  // (PMIX_NAMESPACE, PMIX_RANK, PMIX_SERVER_URI*, ...). Throws
  // std::runtime_error on a rank that is not local or added twice.
  core::EnvMap add_client(std::uint32_t rank, std::shared_ptr<Backend> link);

  // The rank's process has ended (after_exit): forget it as a client.
  void client_exited(std::uint32_t rank, int exit_code);

  struct Core;

 private:
  std::shared_ptr<Core> core_;
};

}  // namespace slipway::pmix
