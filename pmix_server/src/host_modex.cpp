// Direct modex through the control plane. Each server publishes the data
// of each of its ranks as the task key "pmix/<nspace>/modex/<rank>" when the rank
// first commits (PMIx_server_dmodex_request on its own client completes at
// the commit); a server asked for a remote rank's data waits for that key.
// A wait whose rank ends fails at once (member_ended).
#include <pmix.h>

#include "host_core.hpp"

namespace slipway::pmix {
namespace {

void release_string(void* data) { delete static_cast<std::string*>(data); }

}  // namespace

void ServerHost::Core::direct_modex(std::uint32_t rank, std::chrono::milliseconds timeout,
                                    ModexCallback cb) {
  if (local.hosts(rank)) {
    // libpmix answers for its own clients; being asked means it has nothing.
    cb.fn(PMIX_ERR_NOT_FOUND, nullptr, 0, cb.data, nullptr, nullptr);
    return;
  }
  auto link = any_link();
  if (!link) {
    waiting_for_links.push_back([this, rank, timeout, cb] { direct_modex(rank, timeout, cb); });
    return;
  }
  const std::uint64_t id = next_modex_id++;
  pending_modex[id] = PendingModex{rank, cb};
  std::weak_ptr<Core> weak = weak_from_this();
  link->wait_for(modex_key(rank), timeout, [weak, id](BackendReply reply) {
    auto self = weak.lock();
    if (!self) return;
    self->post([self = self.get(), id, reply = std::move(reply)]() mutable {
      if (reply.status == BackendStatus::ok && reply.value) {
        self->finish_modex(id, PMIX_SUCCESS, std::move(*reply.value));
      } else {
        auto it = self->pending_modex.find(id);
        if (it != self->pending_modex.end()) {
          self->log("direct modex for " + self->world.task_name(it->second.rank) + " failed: " +
                    reply.message);
        }
        self->finish_modex(id, to_pmix_status(reply.status == BackendStatus::ok ? BackendStatus::error
                                                                              : reply.status),
                           {});
      }
    });
  });
}

void ServerHost::Core::finish_modex(std::uint64_t id, pmix_status_t status, std::string blob) {
  auto it = pending_modex.find(id);
  if (it == pending_modex.end()) return;  // already answered (the rank ended)
  ModexCallback cb = it->second.cb;
  const std::uint32_t it_rank = it->second.rank;
  pending_modex.erase(it);
  if (status != PMIX_SUCCESS) {
    cb.fn(status, nullptr, 0, cb.data, nullptr, nullptr);
    return;
  }
  trace("direct modex for " + world.task_name(it_rank) + ": " + std::to_string(blob.size()) + " bytes");
  auto* data = new std::string(std::move(blob));
  cb.fn(PMIX_SUCCESS, data->data(), data->size(), cb.data, release_string, data);
}

void ServerHost::Core::modex_committed(std::uint32_t rank, std::string blob) {
  auto it = links.find(rank);
  if (it == links.end()) return;  // the rank has ended meanwhile
  trace("publishing the modex data of " + world.task_name(rank) + ": " + std::to_string(blob.size()) + " bytes");
  it->second->put(modex_key(rank), std::move(blob), Scope::task, [weak = weak_from_this(), rank](BackendReply reply) {
    if (reply.status == BackendStatus::ok) return;
    if (auto self = weak.lock()) {
      self->log("cannot publish the modex data of rank " + std::to_string(rank) + ": " + reply.message);
    }
  });
}

}  // namespace slipway::pmix
