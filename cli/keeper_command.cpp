// `slipway keeper`: the batch script of a satellite job (docs/elastic.md).
// It tells the program's controller that Slurm started the job, and where
// (the program key satellite/JOBID = this host), then holds the job while
// the program's rendezvous is there: when the controller goes away the
// keeper ends, and so does the job, whatever killed the controller. The
// controller ends the job with scancel when it no longer needs it.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "commands.hpp"
#include "slipway/base/local_address.hpp"
#include "running_program.hpp"

#include "slipway/core/contract.hpp"

namespace slipway::cli {

void register_keeper(CLI::App& app, CommandContext& ctx) {
  auto* cmd = app.add_subcommand("keeper", "Hold a satellite job for a running program (run by sbatch)");
  cmd->group("");  // internal: the controller submits it
  cmd->callback([&ctx] {
    const char* run_dir = std::getenv(core::env::kRunDir);
    const char* job = std::getenv("SLURM_JOB_ID");
    if (!run_dir || !*run_dir || !job || !*job) {
      std::fprintf(stderr, "slipway keeper: runs as a satellite job's batch script only (%s and "
                   "SLURM_JOB_ID must be set)\n", core::env::kRunDir);
      ctx.exit_code = 2;
      return;
    }
    std::string host;
    if (const char* node = std::getenv("SLURMD_NODENAME"); node && *node) {
      host = node;
    } else {
      host = base::this_host_name();
    }
    std::mutex mutex;
    std::condition_variable changed;
    bool lost = false;
    rendezvous::ClientOptions options;
    options.on_disconnect = [&](const rendezvous::Error&) {
      std::lock_guard lock(mutex);
      lost = true;
      changed.notify_all();
    };
    try {
      auto client = connect_to_program(run_dir, "", options);
      client->put(core::keys::satellite(job), host, rendezvous::Scope::program);
      std::fprintf(stderr, "slipway keeper: satellite job %s on %s joined the program of %s\n", job,
                   host.c_str(), run_dir);
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return lost; });
      std::fprintf(stderr, "slipway keeper: the program's rendezvous went away; satellite job %s ends\n", job);
      ctx.exit_code = 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "slipway keeper: %s; satellite job %s ends\n", e.what(), job);
      ctx.exit_code = 1;
    }
  });
}

}  // namespace slipway::cli
