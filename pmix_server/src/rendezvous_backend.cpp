// The PMIx host's control plane over a rendezvous member client
// (rendezvous_backend.hpp).
#include "slipway/pmix/rendezvous_backend.hpp"

#include "executor.hpp"
#include "slipway/rendezvous/error.hpp"

namespace slipway::pmix {
namespace {

namespace rdzv = slipway::rendezvous;

std::chrono::milliseconds or_unlimited(std::chrono::milliseconds timeout) {
  if (timeout.count() > 0) return timeout;
  return std::chrono::milliseconds(rdzv::Limits{}.max_timeout_ms);
}

rdzv::Scope scope_of(Scope scope) {
  return scope == Scope::task ? rdzv::Scope::task : rdzv::Scope::program;
}

BackendReply reply_of(rdzv::Status status, std::optional<std::string> value, const std::string& message) {
  BackendReply r;
  r.status = backend_status(status);
  if (r.status != BackendStatus::ok) r.message = message.empty() ? std::string(rdzv::to_string(status)) : message;
  r.value = std::move(value);
  return r;
}

class RendezvousBackend final : public Backend {
 public:
  explicit RendezvousBackend(rdzv::Client& client)
      : client_(client), node_(client.identity().node), replica_(client.identity().replica) {}

  ~RendezvousBackend() override { worker_.stop(); }

  const std::string& node() const override { return node_; }
  std::uint32_t replica() const override { return replica_; }

  void fence(FenceCall call, std::function<void(FenceReply)> done) override {
    std::vector<rdzv::NodeRange> ranges;
    for (const auto& r : call.members) ranges.push_back(rdzv::NodeRange{r.node, r.first, r.count});
    client_.fence_async(call.name, rdzv::MemberSet::of(std::move(ranges)), std::move(call.blob),
                        call.timeout, call.collect, [done = std::move(done)](rdzv::FenceResult result) {
                          FenceReply reply;
                          reply.status = backend_status(result.status);
                          reply.message = result.message;
                          for (auto& b : result.blobs) reply.blobs.push_back(std::move(b.blob));
                          done(std::move(reply));
                        });
  }

  void put(std::string key, std::string value, Scope scope,
           std::function<void(BackendReply)> done) override {
    client_.put_async(key, value, scope_of(scope), [done = std::move(done)](rdzv::Status s, const std::string& m) {
      done(reply_of(s, std::nullopt, m));
    });
  }

  void create(std::string key, std::string value, Scope scope,
              std::function<void(BackendReply)> done) override {
    blocking(std::move(done), [this, key = std::move(key), value = std::move(value), scope] {
      auto result = client_.compare_and_swap(key, std::nullopt, value, scope_of(scope));
      if (result.swapped) return BackendReply{};
      return BackendReply{BackendStatus::exists, "key '" + key + "' already exists", result.current};
    });
  }

  void get(std::string key, std::function<void(BackendReply)> done) override {
    client_.get_async(key, [done = std::move(done)](rdzv::Status s, std::optional<std::string> v,
                                                      const std::string& m) { done(reply_of(s, std::move(v), m)); });
  }

  void wait_for(std::string key, std::chrono::milliseconds timeout,
                std::function<void(BackendReply)> done) override {
    client_.wait_for_async(key, or_unlimited(timeout),
                           [done = std::move(done)](rdzv::Status s, std::optional<std::string> v,
                                                    const std::string& m) {
                             // A wait that ran out reports timeout or an ok without value.
                             if (s == rdzv::Status::ok && !v) s = rdzv::Status::timeout;
                             done(reply_of(s, std::move(v), m));
                           });
  }

  void erase(std::string key, std::function<void(BackendReply)> done) override {
    blocking(std::move(done), [this, key = std::move(key)] {
      if (client_.erase(key)) return BackendReply{};
      return BackendReply{BackendStatus::not_found, "no key '" + key + "'", std::nullopt};
    });
  }

  void watch_members(std::function<void(const MemberEnded&)> on_ended) override {
    // Subscribed before returning, so no end after this call is missed.
    const auto kinds = static_cast<std::uint8_t>(static_cast<std::uint8_t>(rdzv::EventKind::member_failed) |
                                                 static_cast<std::uint8_t>(rdzv::EventKind::member_left));
    client_.subscribe(kinds, "", [on_ended = std::move(on_ended)](const rdzv::Event& e) {
      MemberEnded how;
      how.node = e.member.identity.node;
      how.replica = e.member.identity.replica;
      how.failed = e.kind == rdzv::EventKind::member_failed;
      how.exit_status = e.member.exit_status;
      how.reason = e.member.reason;
      on_ended(how);
    });
  }

 private:
  // Runs a blocking client call on the worker; errors become replies.
  void blocking(std::function<void(BackendReply)> done, std::function<BackendReply()> call) {
    bool posted = worker_.post([done, call = std::move(call)] {
      BackendReply reply;
      try {
        reply = call();
      } catch (const rdzv::Error& e) {
        reply = BackendReply{backend_status(e.status()), e.what(), std::nullopt};
      } catch (const std::exception& e) {
        reply = BackendReply{BackendStatus::error, e.what(), std::nullopt};
      }
      done(std::move(reply));
    });
    if (!posted) done(BackendReply{BackendStatus::error, "the rendezvous backend is closing", std::nullopt});
  }

  rdzv::Client& client_;
  std::string node_;
  std::uint32_t replica_;
  detail::Executor worker_;
};

}  // namespace

BackendStatus backend_status(rdzv::Status status) {
  switch (status) {
    case rdzv::Status::ok: return BackendStatus::ok;
    case rdzv::Status::not_found: return BackendStatus::not_found;
    case rdzv::Status::timeout: return BackendStatus::timeout;
    case rdzv::Status::member_failed: return BackendStatus::member_failed;
    default: return BackendStatus::error;
  }
}

std::shared_ptr<Backend> rendezvous_backend(rdzv::Client& client) {
  return std::make_shared<RendezvousBackend>(client);
}

}  // namespace slipway::pmix
