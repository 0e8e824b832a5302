// ServerHost: starting and stopping libpmix's server, registering the
// world's namespace and each local client (server_host.hpp).
#include "slipway/pmix/server_host.hpp"

#include <pmix.h>
#include <pmix_server.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <future>
#include <stdexcept>

#include "host_core.hpp"
#include "info_array.hpp"
#include "job_info.hpp"
#include "slipway/pmix/private_dir.hpp"

namespace slipway::pmix {
namespace {

// libpmix's server cannot be started again in a process once finalized
// (its event base is gone), so a process gets one server in its life.
std::atomic<bool> g_host_started{false};

// Waits for one pmix_op_cbfunc_t completion.
struct OpWait {
  std::promise<pmix_status_t> done;
  static void callback(pmix_status_t status, void* data) {
    static_cast<OpWait*>(data)->done.set_value(status);
  }
  pmix_status_t wait() { return done.get_future().get(); }
};

void check(pmix_status_t rc, const std::string& what) {
  if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
    throw std::runtime_error(what + ": " + PMIx_Error_string(rc));
  }
}

void on_committed(pmix_status_t status, char* data, std::size_t size, void* cbdata) noexcept {
  try {
    auto* watch = static_cast<ServerHost::Core::CommitWatch*>(cbdata);
    auto core = watch->core.lock();
    if (!core || status != PMIX_SUCCESS) return;
    std::string blob(data ? data : "", data ? size : 0);
    core->post([c = core.get(), rank = watch->rank, blob = std::move(blob)]() mutable {
      c->modex_committed(rank, std::move(blob));
    });
  } catch (...) {
    // Nothing may cross back into libpmix; a lost publication only makes a
    // remote direct modex wait (and time out).
  }
}

}  // namespace

ServerHost::ServerHost(MpiWorld world, std::vector<std::uint32_t> local_ranks, ServerHostOptions options) {
  if (g_host_started.exchange(true)) {
    throw std::runtime_error(
        "this process has already started a PMIx server; libpmix runs one server per process "
        "(one per task agent)");
  }
  try {
    core_ = std::make_shared<Core>(std::move(world), std::move(local_ranks), std::move(options));
    core_->tmpdir = std::make_unique<detail::PrivateDir>(
        core_->options.tmpdir_base.empty() ? detail::temp_base() : core_->options.tmpdir_base,
        "slipway-pmix", "the PMIx server's directory");
    const WorldHost& host = core_->world.hosts()[core_->local.nodeid()];

    detail::InfoArray init;
    init.add_string(PMIX_SERVER_TMPDIR, core_->tmpdir->path());
    init.add_string(PMIX_SYSTEM_TMPDIR, core_->tmpdir->path());
    init.add_bool(PMIX_SERVER_TOOL_SUPPORT, false);
    init.add_bool(PMIX_SERVER_SYSTEM_SUPPORT, false);
    init.add_bool(PMIX_SERVER_SESSION_SUPPORT, false);
    init.add_string(PMIX_HOSTNAME, host.name);
    set_current_core(core_);
    pmix_status_t rc = PMIx_server_init(server_module(), init.data(), init.size());
    if (rc != PMIX_SUCCESS) {
      set_current_core(nullptr);
      throw std::runtime_error(std::string("cannot start the PMIx server: ") + PMIx_Error_string(rc));
    }
    try {
      detail::InfoArray info = detail::namespace_info(core_->world, core_->local);
      pmix_nspace_t nspace;
      std::memset(nspace, 0, sizeof nspace);
      std::strncpy(nspace, core_->world.nspace().c_str(), PMIX_MAX_NSLEN);
      OpWait wait;
      rc = PMIx_server_register_nspace(nspace, static_cast<int>(core_->local.ranks().size()),
                                       info.data(), info.size(), OpWait::callback, &wait);
      check(rc == PMIX_SUCCESS ? wait.wait() : rc, "cannot register the MPI world with PMIx");
    } catch (...) {
      set_current_core(nullptr);
      core_->executor.stop();
      PMIx_server_finalize();
      throw;
    }
  } catch (...) {
    core_.reset();  // and the directory with it
    throw;
  }
}

ServerHost::~ServerHost() {
  // Stop our loop first so no job calls into libpmix while it finalizes;
  // upcalls arriving meanwhile find no host and fail.
  core_->executor.stop();
  set_current_core(nullptr);
  PMIx_server_finalize();
  core_->tmpdir.reset();
}

const MpiWorld& ServerHost::world() const { return core_->world; }

core::EnvMap ServerHost::add_client(std::uint32_t rank, std::shared_ptr<Backend> link) {
  if (!core_->local.hosts(rank)) {
    throw std::runtime_error("MPI rank " + std::to_string(rank) + " (" + core_->world.task_name(rank) +
                             ") is not run by this agent");
  }
  bool fresh = false;
  core_->executor.run_sync([&] { fresh = core_->added.count(rank) == 0; });
  if (!fresh) throw std::runtime_error(core_->world.task_name(rank) + " was added to the PMIx server twice");

  pmix_proc_t proc = detail::make_proc(core_->world.nspace(), rank);
  OpWait wait;
  pmix_status_t rc = PMIx_server_register_client(&proc, getuid(), getgid(), nullptr, OpWait::callback, &wait);
  check(rc == PMIX_SUCCESS ? wait.wait() : rc, "cannot register " + core_->world.task_name(rank) + " with PMIx");

  char** env = static_cast<char**>(std::calloc(1, sizeof(char*)));
  if (env == nullptr) throw std::bad_alloc();
  rc = PMIx_server_setup_fork(&proc, &env);
  core::EnvMap added;
  for (std::size_t i = 0; env != nullptr && env[i] != nullptr; ++i) {
    std::string entry = env[i];
    auto eq = entry.find('=');
    if (eq != std::string::npos) added[entry.substr(0, eq)] = entry.substr(eq + 1);
    std::free(env[i]);
  }
  std::free(env);
  check(rc, "cannot prepare the environment of " + core_->world.task_name(rank));

  core_->executor.run_sync([&] { core_->attach(rank, std::move(link)); });

  // Kept until the host is destroyed: libpmix may drop a pending request
  // at finalize without calling back.
  auto& watch = core_->commit_watches.emplace_back(std::make_unique<Core::CommitWatch>());
  watch->core = core_;
  watch->rank = rank;
  rc = PMIx_server_dmodex_request(&proc, on_committed, watch.get());
  if (rc != PMIX_SUCCESS) {
    core_->log("cannot watch the modex data of " + core_->world.task_name(rank) + ": " +
               PMIx_Error_string(rc) + " (remote direct modex requests for it will time out)");
  }
  return added;
}

void ServerHost::client_exited(std::uint32_t rank, int) {
  try {
    core_->executor.run_sync([&] { core_->detach(rank); });
  } catch (const std::exception&) {
    // The host is stopping; nothing is left to forget.
  }
}

}  // namespace slipway::pmix
