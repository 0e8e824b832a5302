// The state and operations of the PMIx server host (server_host.hpp). The
// upcalls (upcalls.cpp) copy their arguments into the structs below and
// post an operation; every member here runs on the executor's thread,
// except post(), which any thread may call. Completions from the backend
// come back through post() as well, holding only a weak reference, so a
// late reply after shutdown does nothing.
#pragma once

#include <pmix_server.h>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "executor.hpp"
#include "slipway/pmix/private_dir.hpp"
#include "slipway/pmix/server_host.hpp"

namespace slipway::pmix {

struct ServerHost::Core : std::enable_shared_from_this<ServerHost::Core> {
  Core(MpiWorld world, std::vector<std::uint32_t> local_ranks, ServerHostOptions options);

  // --- arguments copied out of upcalls ---
  struct ProcSet {
    bool whole_world = false;
    std::vector<std::uint32_t> ranks;  // when !whole_world
    std::string foreign_nspace;        // set when a proc of another namespace was named
  };
  struct ModexCallback {
    pmix_modex_cbfunc_t fn = nullptr;
    void* data = nullptr;
  };
  struct OpCallback {
    pmix_op_cbfunc_t fn = nullptr;
    void* data = nullptr;
  };
  struct Published {
    std::string key;
    std::string packed;  // publisher proc + pmix_value_t, packed by libpmix
  };

  // --- operations (executor thread) ---
  void fence(ProcSet procs, bool collect, std::chrono::milliseconds timeout, std::string data,
             ModexCallback cb);
  void connect(ProcSet procs, std::string kind, std::chrono::milliseconds timeout, OpCallback cb);
  void direct_modex(std::uint32_t rank, std::chrono::milliseconds timeout, ModexCallback cb);
  void publish(std::uint32_t rank, std::vector<Published> data, Scope scope, OpCallback cb);
  void lookup(std::uint32_t rank, std::vector<std::string> keys, bool wait,
              std::chrono::milliseconds timeout, pmix_lookup_cbfunc_t fn, void* data);
  void unpublish(std::uint32_t rank, std::vector<std::string> keys, bool all, OpCallback cb);
  void abort(std::uint32_t rank, int status, std::string message, OpCallback cb);
  void member_ended(const MemberEnded& how);
  void modex_committed(std::uint32_t rank, std::string blob);

  // Any thread.
  bool post(std::function<void()> job);
  void log(const std::string& line) const;
  void trace(const std::string& line) const {
    if (options.verbose) log(line);
  }

  // Keys in the control plane.
  std::string modex_key(std::uint32_t rank) const;
  std::string published_key(const std::string& key) const;

  MpiWorld world;
  LocalView local;
  ServerHostOptions options;
  std::unique_ptr<detail::PrivateDir> tmpdir;  // libpmix's own files
  detail::Executor executor;

  // --- state (executor thread) ---
  std::map<std::uint32_t, std::shared_ptr<Backend>> links;  // local rank -> its task's link
  std::set<std::uint32_t> added;                            // local ranks ever added
  std::vector<std::function<void()>> waiting_for_links;     // work that came before every link
  std::optional<std::uint32_t> watcher;                     // whose link carries watch_members
  std::map<std::string, std::uint64_t> collective_seq;      // per collective signature
  struct PendingModex {
    std::uint32_t rank = 0;
    ModexCallback cb;
  };
  std::map<std::uint64_t, PendingModex> pending_modex;
  std::uint64_t next_modex_id = 1;
  std::map<std::uint32_t, std::set<std::string>> published_by;  // local rank -> keys

  // A dmodex request on one of our own clients, which libpmix completes at
  // the client's first commit (server_host.cpp). Touched by add_client only.
  struct CommitWatch {
    std::weak_ptr<Core> core;
    std::uint32_t rank = 0;
  };
  std::vector<std::unique_ptr<CommitWatch>> commit_watches;

  bool all_links() const { return added.size() == local.ranks().size(); }
  // Runs `job` now when every local link is there, else once they are.
  void when_ready(std::function<void()> job);
  void attach(std::uint32_t rank, std::shared_ptr<Backend> link);
  void detach(std::uint32_t rank);
  void watch_through(std::uint32_t rank);
  std::shared_ptr<Backend> any_link() const;
  std::shared_ptr<Backend> link_of(std::uint32_t rank) const;
  std::optional<std::vector<std::uint32_t>> resolve(const ProcSet& procs, std::string& error) const;
  // "pmix/<kind>/<signature>/<n>": the same name on every participant, as
  // collectives over one set of procs run in the same order everywhere.
  std::string collective_name(const std::string& kind, const std::vector<std::uint32_t>& ranks);
  // Enters a control-plane fence through each local member among `ranks`
  // (the first carries `blob`) and calls `done` once with the combined reply.
  void enter_fence(const std::string& name, const std::vector<std::uint32_t>& ranks, bool collect,
                   std::string blob, std::chrono::milliseconds timeout,
                   std::function<void(FenceReply)> done);
  void finish_modex(std::uint64_t id, pmix_status_t status, std::string blob);

  // Collects `n` asynchronous replies (any thread) back onto the executor,
  // then calls `done` with them in order. Returns one callback per reply.
  template <typename Reply>
  std::vector<std::function<void(Reply)>> gather(std::size_t n,
                                                 std::function<void(std::vector<Reply>)> done);
};

template <typename Reply>
std::vector<std::function<void(Reply)>> ServerHost::Core::gather(
    std::size_t n, std::function<void(std::vector<Reply>)> done) {
  struct State {
    std::vector<Reply> replies;
    std::size_t left = 0;
    std::function<void(std::vector<Reply>)> done;
  };
  auto state = std::make_shared<State>();
  state->replies.resize(n);
  state->left = n;
  state->done = std::move(done);
  std::weak_ptr<Core> weak = weak_from_this();
  std::vector<std::function<void(Reply)>> callbacks;
  for (std::size_t i = 0; i < n; ++i) {
    callbacks.push_back([weak, state, i](Reply reply) {
      auto self = weak.lock();
      if (!self) return;
      self->post([state, i, reply = std::move(reply)]() mutable {
        state->replies[i] = std::move(reply);
        if (--state->left == 0) state->done(std::move(state->replies));
      });
    });
  }
  return callbacks;
}

// Status codes the host hands back to libpmix.
pmix_status_t to_pmix_status(BackendStatus status);

// Set while a ServerHost is alive: where the upcalls find it.
std::shared_ptr<ServerHost::Core> current_core();
void set_current_core(std::shared_ptr<ServerHost::Core> core);

// The module of upcalls handed to PMIx_server_init (upcalls.cpp).
pmix_server_module_t* server_module();

}  // namespace slipway::pmix
