// Fence (with and without data collection) and connect/disconnect: each is
// one control-plane fence over the agents hosting the participants, named
// the same on every participant (host_core.hpp, collective_name).
#include <pmix.h>

#include "host_core.hpp"

namespace slipway::pmix {
namespace {

void release_string(void* data) { delete static_cast<std::string*>(data); }

}  // namespace

void ServerHost::Core::fence(ProcSet procs, bool collect, std::chrono::milliseconds timeout,
                             std::string data, ModexCallback cb) {
  if (!all_links()) {
    waiting_for_links.push_back([this, procs = std::move(procs), collect, timeout,
                                 data = std::move(data), cb]() mutable {
      fence(std::move(procs), collect, timeout, std::move(data), cb);
    });
    return;
  }
  std::string error;
  auto ranks = resolve(procs, error);
  if (!ranks) {
    log("fence refused: " + error);
    cb.fn(PMIX_ERR_NOT_SUPPORTED, nullptr, 0, cb.data, nullptr, nullptr);
    return;
  }
  const std::string name = collective_name("fence", *ranks);
  const std::size_t count = ranks->size();
  enter_fence(name, *ranks, collect, std::move(data), timeout,
              [this, cb, name, count](FenceReply reply) {
                if (reply.status != BackendStatus::ok) {
                  log("fence over " + std::to_string(count) + " rank(s) failed: " + reply.message);
                  cb.fn(to_pmix_status(reply.status), nullptr, 0, cb.data, nullptr, nullptr);
                  return;
                }
                // libpmix reads the servers' blobs back to back.
                auto* joined = new std::string;
                for (const auto& blob : reply.blobs) joined->append(blob);
                trace(name + " over " + std::to_string(count) + " rank(s): " +
                      std::to_string(joined->size()) + " bytes");
                cb.fn(PMIX_SUCCESS, joined->data(), joined->size(), cb.data, release_string, joined);
              });
}

void ServerHost::Core::connect(ProcSet procs, std::string kind, std::chrono::milliseconds timeout,
                               OpCallback cb) {
  if (!all_links()) {
    waiting_for_links.push_back([this, procs = std::move(procs), kind = std::move(kind), timeout,
                                 cb]() mutable { connect(std::move(procs), std::move(kind), timeout, cb); });
    return;
  }
  std::string error;
  auto ranks = resolve(procs, error);
  if (!ranks) {
    log(kind + " refused: " + error);
    cb.fn(PMIX_ERR_NOT_SUPPORTED, cb.data);
    return;
  }
  const std::string name = collective_name(kind, *ranks);
  enter_fence(name, *ranks, false, {}, timeout, [this, cb, kind, name](FenceReply reply) {
    if (reply.status != BackendStatus::ok) log(kind + " failed: " + reply.message);
    trace(name + ": " + std::string(to_string(reply.status)));
    cb.fn(to_pmix_status(reply.status), cb.data);
  });
}

}  // namespace slipway::pmix
