// The upcalls libpmix's server makes into the host (pmix_server_module_t).
// Each one copies what it needs out of libpmix's arguments, posts the work
// to the host's executor and returns at once; the result goes back later
// through libpmix's callback. No exception leaves this file: every upcall
// is a noexcept C entry point that turns failures into PMIx status codes.
#include <pmix.h>
#include <pmix_server.h>

#include <cstring>
#include <functional>
#include <new>

#include "host_core.hpp"
#include "info_array.hpp"
#include "publish_codec.hpp"

namespace slipway::pmix {
namespace {

using Core = ServerHost::Core;
using std::chrono::milliseconds;

template <typename F>
pmix_status_t guarded(F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return PMIX_ERR_NOMEM;
  } catch (...) {
    return PMIX_ERROR;
  }
}

milliseconds timeout_of(const pmix_info_t info[], std::size_t ninfo, milliseconds fallback) {
  auto seconds = detail::info_integer(info, ninfo, PMIX_TIMEOUT);
  if (!seconds || *seconds <= 0) return fallback;
  return milliseconds(*seconds * 1000);
}

Core::ProcSet proc_set(const Core& core, const pmix_proc_t procs[], std::size_t nprocs) {
  Core::ProcSet set;
  if (procs == nullptr || nprocs == 0) {
    set.whole_world = true;
    return set;
  }
  for (std::size_t i = 0; i < nprocs; ++i) {
    std::string nspace = detail::proc_nspace(procs[i]);
    if (nspace != core.world.nspace()) {
      set.foreign_nspace = nspace;
    } else if (procs[i].rank == PMIX_RANK_WILDCARD) {
      set.whole_world = true;
    } else {
      set.ranks.push_back(procs[i].rank);
    }
  }
  return set;
}

bool ours(const Core& core, const pmix_proc_t* proc) {
  return proc != nullptr && detail::proc_nspace(*proc) == core.world.nspace() &&
         proc->rank < core.world.size();
}

std::vector<std::string> key_list(char** keys) {
  std::vector<std::string> out;
  for (std::size_t i = 0; keys != nullptr && keys[i] != nullptr; ++i) out.emplace_back(keys[i]);
  return out;
}

// The shape of every upcall: find the live host (and check that `proc`,
// when given, is one of its world's ranks), let `prepare` copy what it
// needs out of libpmix's arguments into the job to post, and post it.
// `prepare` returns an empty job for arguments it refuses.
template <typename Prepare>
pmix_status_t upcall(const pmix_proc_t* proc, Prepare prepare) noexcept {
  return guarded([&]() -> pmix_status_t {
    auto core = current_core();
    if (!core) return PMIX_ERR_NOT_AVAILABLE;
    if (proc != nullptr && !ours(*core, proc)) return PMIX_ERR_NOT_FOUND;
    std::function<void()> job = prepare(core.get());
    if (!job) return PMIX_ERR_BAD_PARAM;
    return core->post(std::move(job)) ? PMIX_SUCCESS : PMIX_ERR_NOT_AVAILABLE;
  });
}

pmix_status_t on_abort(const pmix_proc_t* proc, void*, int status, const char msg[], pmix_proc_t[],
                       std::size_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return upcall(proc, [&](Core* c) -> std::function<void()> {
    return [c, rank = proc->rank, status, message = std::string(msg ? msg : ""), cbfunc, cbdata] {
      c->abort(rank, status, message, Core::OpCallback{cbfunc, cbdata});
    };
  });
}

pmix_status_t on_fence(const pmix_proc_t procs[], std::size_t nprocs, const pmix_info_t info[],
                       std::size_t ninfo, char* data, std::size_t ndata, pmix_modex_cbfunc_t cbfunc,
                       void* cbdata) {
  return upcall(nullptr, [&](Core* c) -> std::function<void()> {
    bool collect = detail::info_flag(info, ninfo, PMIX_COLLECT_DATA, false);
    std::string blob = (collect && data != nullptr) ? std::string(data, ndata) : std::string();
    return [c, set = proc_set(*c, procs, nprocs), collect,
            timeout = timeout_of(info, ninfo, c->options.fence_timeout), blob, cbfunc, cbdata] {
      c->fence(set, collect, timeout, blob, Core::ModexCallback{cbfunc, cbdata});
    };
  });
}

pmix_status_t on_direct_modex(const pmix_proc_t* proc, const pmix_info_t info[], std::size_t ninfo,
                              pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  return upcall(proc, [&](Core* c) -> std::function<void()> {
    return [c, rank = proc->rank, timeout = timeout_of(info, ninfo, c->options.modex_timeout), cbfunc,
            cbdata] { c->direct_modex(rank, timeout, Core::ModexCallback{cbfunc, cbdata}); };
  });
}

pmix_status_t on_publish(const pmix_proc_t* proc, const pmix_info_t info[], std::size_t ninfo,
                         pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return upcall(proc, [&](Core* c) -> std::function<void()> {
    Scope scope = Scope::program;
    std::vector<Core::Published> data;
    for (std::size_t i = 0; i < ninfo; ++i) {
      if (std::strncmp(info[i].key, PMIX_PERSISTENCE, PMIX_MAX_KEYLEN) == 0) {
        if (info[i].value.type == PMIX_PERSIST && info[i].value.data.persist == PMIX_PERSIST_PROC) {
          scope = Scope::task;
        }
      } else if (!detail::is_publish_directive(info[i].key)) {
        data.push_back(Core::Published{info[i].key, detail::pack_published(*proc, info[i].value)});
      }
    }
    if (data.empty()) return {};
    return [c, rank = proc->rank, data, scope, cbfunc, cbdata] {
      c->publish(rank, data, scope, Core::OpCallback{cbfunc, cbdata});
    };
  });
}

pmix_status_t on_lookup(const pmix_proc_t* proc, char** keys, const pmix_info_t info[],
                        std::size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void* cbdata) {
  return upcall(proc, [&](Core* c) -> std::function<void()> {
    auto wanted = key_list(keys);
    if (wanted.empty()) return {};
    bool wait = detail::info_integer(info, ninfo, PMIX_WAIT).has_value() ||
                detail::info_flag(info, ninfo, PMIX_WAIT, false);
    return [c, rank = proc->rank, wanted, wait, timeout = timeout_of(info, ninfo, milliseconds(0)),
            cbfunc, cbdata] { c->lookup(rank, wanted, wait, timeout, cbfunc, cbdata); };
  });
}

pmix_status_t on_unpublish(const pmix_proc_t* proc, char** keys, const pmix_info_t[], std::size_t,
                           pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return upcall(proc, [&](Core* c) -> std::function<void()> {
    return [c, rank = proc->rank, wanted = key_list(keys), all = keys == nullptr, cbfunc, cbdata] {
      c->unpublish(rank, wanted, all, Core::OpCallback{cbfunc, cbdata});
    };
  });
}

pmix_status_t connect_like(const char* kind, const pmix_proc_t procs[], std::size_t nprocs,
                           const pmix_info_t info[], std::size_t ninfo, pmix_op_cbfunc_t cbfunc,
                           void* cbdata) {
  return upcall(nullptr, [&](Core* c) -> std::function<void()> {
    return [c, set = proc_set(*c, procs, nprocs), kind = std::string(kind),
            timeout = timeout_of(info, ninfo, c->options.fence_timeout), cbfunc, cbdata] {
      c->connect(set, kind, timeout, Core::OpCallback{cbfunc, cbdata});
    };
  });
}

pmix_status_t on_connect(const pmix_proc_t procs[], std::size_t nprocs, const pmix_info_t info[],
                         std::size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return connect_like("connect", procs, nprocs, info, ninfo, cbfunc, cbdata);
}

pmix_status_t on_disconnect(const pmix_proc_t procs[], std::size_t nprocs, const pmix_info_t info[],
                            std::size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return connect_like("disconnect", procs, nprocs, info, ninfo, cbfunc, cbdata);
}

pmix_server_module_t make_module() {
  pmix_server_module_t module;
  std::memset(&module, 0, sizeof module);
  // client_connected / client_finalized / register_events left empty:
  // libpmix completes them itself. spawn is not supported (empty).
  module.abort = on_abort;
  module.fence_nb = on_fence;
  module.direct_modex = on_direct_modex;
  module.publish = on_publish;
  module.lookup = on_lookup;
  module.unpublish = on_unpublish;
  module.connect = on_connect;
  module.disconnect = on_disconnect;
  return module;
}

}  // namespace

pmix_server_module_t* server_module() {
  static pmix_server_module_t module = make_module();
  return &module;
}

}  // namespace slipway::pmix
