// Publish / lookup / unpublish across the program: each published key is
// the control-plane key "pmix/<nspace>/pub/<key>" holding the publisher and the
// value (publish_codec.hpp). Keys are program-scoped, or task-scoped with
// PMIX_PERSIST_PROC (withdrawn when the publisher's task ends); a key
// published twice is PMIX_ERR_DUPLICATE_KEY.
#include <pmix.h>

#include "host_core.hpp"
#include "publish_codec.hpp"

namespace slipway::pmix {

void ServerHost::Core::publish(std::uint32_t rank, std::vector<Published> data, Scope scope,
                               OpCallback cb) {
  auto link = link_of(rank);
  if (!link) {
    waiting_for_links.push_back([this, rank, data = std::move(data), scope, cb]() mutable {
      publish(rank, std::move(data), scope, cb);
    });
    return;
  }
  std::vector<std::string> keys;
  for (const auto& d : data) keys.push_back(d.key);
  auto callbacks = gather<BackendReply>(data.size(), [this, rank, keys, cb](std::vector<BackendReply> replies) {
    pmix_status_t status = PMIX_SUCCESS;
    for (std::size_t i = 0; i < replies.size(); ++i) {
      if (replies[i].status == BackendStatus::ok) {
        published_by[rank].insert(keys[i]);
        trace(world.task_name(rank) + " published '" + keys[i] + "'");
      } else {
        log(world.task_name(rank) + " cannot publish '" + keys[i] + "': " + replies[i].message);
        if (status == PMIX_SUCCESS) status = to_pmix_status(replies[i].status);
      }
    }
    cb.fn(status, cb.data);
  });
  for (std::size_t i = 0; i < data.size(); ++i) {
    link->create(published_key(data[i].key), std::move(data[i].packed), scope, std::move(callbacks[i]));
  }
}

void ServerHost::Core::lookup(std::uint32_t rank, std::vector<std::string> keys, bool wait,
                              std::chrono::milliseconds timeout, pmix_lookup_cbfunc_t fn, void* data) {
  auto link = link_of(rank);
  if (!link) {
    waiting_for_links.push_back([this, rank, keys = std::move(keys), wait, timeout, fn, data]() mutable {
      lookup(rank, std::move(keys), wait, timeout, fn, data);
    });
    return;
  }
  auto callbacks = gather<BackendReply>(keys.size(), [this, keys, fn, data](std::vector<BackendReply> replies) {
    std::vector<pmix_pdata_t> found;
    for (std::size_t i = 0; i < replies.size(); ++i) {
      if (replies[i].status != BackendStatus::ok || !replies[i].value) continue;
      pmix_pdata_t entry;
      if (detail::unpack_published(*replies[i].value, keys[i], &entry)) {
        found.push_back(entry);
      } else {
        log("published value of '" + keys[i] + "' is malformed; ignored");
      }
    }
    fn(found.empty() ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS, found.empty() ? nullptr : found.data(),
       found.size(), data);
    for (auto& entry : found) PMIx_Value_destruct(&entry.value);
  });
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (wait) {
      link->wait_for(published_key(keys[i]), timeout, std::move(callbacks[i]));
    } else {
      link->get(published_key(keys[i]), std::move(callbacks[i]));
    }
  }
}

void ServerHost::Core::unpublish(std::uint32_t rank, std::vector<std::string> keys, bool all,
                                 OpCallback cb) {
  auto link = link_of(rank);
  std::set<std::string>& mine = published_by[rank];
  if (all) keys.assign(mine.begin(), mine.end());
  bool unknown = false;
  std::vector<std::string> erasing;
  for (auto& k : keys) {
    if (mine.count(k) != 0) {
      erasing.push_back(k);
    } else {
      unknown = true;  // not published by this rank
    }
  }
  if (erasing.empty() || !link) {
    cb.fn(unknown ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS, cb.data);
    return;
  }
  auto callbacks = gather<BackendReply>(erasing.size(), [this, rank, erasing, unknown, cb](std::vector<BackendReply> replies) {
    pmix_status_t status = unknown ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS;
    for (std::size_t i = 0; i < replies.size(); ++i) {
      published_by[rank].erase(erasing[i]);
      if (replies[i].status != BackendStatus::ok && status == PMIX_SUCCESS) {
        status = to_pmix_status(replies[i].status);
      }
    }
    cb.fn(status, cb.data);
  });
  for (std::size_t i = 0; i < erasing.size(); ++i) {
    link->erase(published_key(erasing[i]), std::move(callbacks[i]));
  }
}

}  // namespace slipway::pmix
