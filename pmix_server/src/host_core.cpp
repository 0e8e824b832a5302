// The host's shared machinery: links to the control plane, readiness,
// collective names, fences through the local members, status mapping, and
// where the upcalls find the live host (host_core.hpp).
#include "host_core.hpp"

#include <algorithm>
#include <cstdio>
#include <mutex>

#include "slipway/core/contract.hpp"

namespace slipway::pmix {
namespace {

std::mutex g_core_mutex;
std::shared_ptr<ServerHost::Core> g_core;

std::string joined(const std::vector<std::uint32_t>& ranks) {
  std::string out;
  for (std::uint32_t r : ranks) out += std::to_string(r) + ",";
  return out;
}

}  // namespace

std::shared_ptr<ServerHost::Core> current_core() {
  std::lock_guard lock(g_core_mutex);
  return g_core;
}

void set_current_core(std::shared_ptr<ServerHost::Core> core) {
  std::lock_guard lock(g_core_mutex);
  g_core = std::move(core);
}

pmix_status_t to_pmix_status(BackendStatus status) {
  switch (status) {
    case BackendStatus::ok: return PMIX_SUCCESS;
    case BackendStatus::not_found: return PMIX_ERR_NOT_FOUND;
    case BackendStatus::exists: return PMIX_ERR_DUPLICATE_KEY;
    case BackendStatus::timeout: return PMIX_ERR_TIMEOUT;
    // A participant ended without taking part: "terminated without sync".
    case BackendStatus::member_failed: return PMIX_ERR_PROC_TERM_WO_SYNC;
    case BackendStatus::error: return PMIX_ERROR;
  }
  return PMIX_ERROR;
}

ServerHost::Core::Core(MpiWorld w, std::vector<std::uint32_t> local_ranks, ServerHostOptions o)
    : world(std::move(w)), local(world, std::move(local_ranks)), options(std::move(o)) {
  if (!options.log) {
    options.log = [](const std::string& line) {
      std::string text = "slipway-exec: pmix: " + line + "\n";
      std::fputs(text.c_str(), stderr);
    };
  }
  executor.on_error = [this](const std::string& what) { log("internal error: " + what); };
}

bool ServerHost::Core::post(std::function<void()> job) { return executor.post(std::move(job)); }

void ServerHost::Core::log(const std::string& line) const { options.log(line); }

std::string ServerHost::Core::modex_key(std::uint32_t rank) const {
  return core::keys::pmix_modex(world.nspace(), rank);
}

std::string ServerHost::Core::published_key(const std::string& key) const {
  return core::keys::pmix_published(world.nspace(), key);
}

std::shared_ptr<Backend> ServerHost::Core::any_link() const {
  return links.empty() ? nullptr : links.begin()->second;
}

std::shared_ptr<Backend> ServerHost::Core::link_of(std::uint32_t rank) const {
  auto it = links.find(rank);
  return it == links.end() ? any_link() : it->second;
}

void ServerHost::Core::when_ready(std::function<void()> job) {
  if (all_links()) {
    job();
  } else {
    waiting_for_links.push_back(std::move(job));
  }
}

void ServerHost::Core::attach(std::uint32_t rank, std::shared_ptr<Backend> link) {
  links[rank] = std::move(link);
  added.insert(rank);
  if (!watcher) watch_through(rank);
  if (all_links()) {
    auto ready = std::move(waiting_for_links);
    waiting_for_links.clear();
    for (auto& job : ready) job();
  }
}

void ServerHost::Core::detach(std::uint32_t rank) {
  links.erase(rank);
  if (watcher == rank) {
    watcher.reset();
    if (!links.empty()) watch_through(links.begin()->first);
  }
}

void ServerHost::Core::watch_through(std::uint32_t rank) {
  watcher = rank;
  std::weak_ptr<Core> weak = weak_from_this();
  links.at(rank)->watch_members([weak, rank](const MemberEnded& how) {
    auto self = weak.lock();
    if (!self) return;
    self->post([self = self.get(), rank, how] {
      if (self->watcher == rank) self->member_ended(how);  // a replaced watcher is ignored
    });
  });
}

std::optional<std::vector<std::uint32_t>> ServerHost::Core::resolve(const ProcSet& procs,
                                                                    std::string& error) const {
  if (!procs.foreign_nspace.empty()) {
    error = "namespace '" + procs.foreign_nspace + "' is not this program's MPI world '" +
            world.nspace() + "' (one namespace per program)";
    return std::nullopt;
  }
  if (procs.whole_world) return world.all_ranks();
  std::vector<std::uint32_t> ranks;
  for (std::uint32_t r : procs.ranks) {
    if (r >= world.size()) {
      error = "rank " + std::to_string(r) + " is not in the world of " + std::to_string(world.size());
      return std::nullopt;
    }
    ranks.push_back(r);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

std::string ServerHost::Core::collective_name(const std::string& kind,
                                              const std::vector<std::uint32_t>& ranks) {
  std::string signature = ranks.size() == world.size() ? "all" : short_hash(joined(ranks));
  std::uint64_t n = ++collective_seq[kind + "/" + signature];
  return core::keys::pmix_collective(world.nspace(), kind, signature, n);
}

void ServerHost::Core::enter_fence(const std::string& name, const std::vector<std::uint32_t>& ranks,
                                   bool collect, std::string blob, std::chrono::milliseconds timeout,
                                   std::function<void(FenceReply)> done) {
  std::vector<std::shared_ptr<Backend>> entering;
  for (std::uint32_t r : ranks) {
    if (local.hosts(r)) {
      auto it = links.find(r);
      if (it == links.end()) {
        done(FenceReply{BackendStatus::error,
                        world.task_name(r) + " has already ended here; it cannot enter '" + name + "'",
                        {}});
        return;
      }
      entering.push_back(it->second);
    }
  }
  if (entering.empty()) {
    done(FenceReply{BackendStatus::error, "no participant of '" + name + "' runs here", {}});
    return;
  }
  auto members = world.member_ranges(ranks);
  auto callbacks = gather<FenceReply>(entering.size(), [done = std::move(done)](std::vector<FenceReply> replies) {
    for (auto& r : replies) {
      if (r.status != BackendStatus::ok) return done(std::move(r));
    }
    done(std::move(replies.front()));
  });
  for (std::size_t i = 0; i < entering.size(); ++i) {
    FenceCall call{name, members, collect, i == 0 ? std::move(blob) : std::string(), timeout};
    entering[i]->fence(std::move(call), std::move(callbacks[i]));
  }
}

}  // namespace slipway::pmix
