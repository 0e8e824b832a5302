// The in-process control plane (in_process_control_plane.hpp): one mutex over
// the store, the fences and the waiters; callbacks are collected under the
// lock and run after it is released.
#include "in_process_control_plane.hpp"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace slipway::pmix {
namespace {

using Clock = std::chrono::steady_clock;
using Ready = std::vector<std::function<void()>>;

std::string member_name(const std::string& node, std::uint32_t replica) {
  return node + "." + std::to_string(replica);
}

bool in_ranges(const std::vector<MemberRange>& ranges, const std::string& node, std::uint32_t replica) {
  for (const auto& r : ranges) {
    if (r.node == node && replica >= r.first && replica - r.first < r.count) return true;
  }
  return false;
}

std::string ended_how(const MemberEnded& e) {
  if (e.failed) return "failed (" + e.reason + ")";
  return "left with exit status " + std::to_string(e.exit_status);
}

Clock::time_point deadline_after(std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) return Clock::time_point::max();
  return Clock::now() + timeout;
}

}  // namespace

struct InProcessControlPlane::State {
  struct Entry {
    std::string value;
    Scope scope = Scope::program;
    std::string owner;
  };
  struct Waiter {
    std::string key;
    Clock::time_point deadline;
    std::function<void(BackendReply)> done;
  };
  struct Entrant {
    std::string member;
    std::string blob;
    Clock::time_point deadline;
    std::function<void(FenceReply)> done;
  };
  struct Fence {
    std::vector<MemberRange> members;
    bool collect = true;
    std::vector<Entrant> entrants;
  };

  mutable std::mutex mu;
  std::condition_variable wake;
  bool stopping = false;
  std::map<std::string, Entry> kv;
  std::map<std::uint64_t, Waiter> waiters;
  std::uint64_t next_waiter = 1;
  std::map<std::string, Fence> fences;
  std::map<std::string, MemberEnded> ended;
  std::vector<std::function<void(const MemberEnded&)>> watchers;
  std::thread timer;

  // Everything below runs with `mu` held and appends callbacks to `ready`.
  void fail_fence(const std::string& name, BackendStatus status, const std::string& message, Ready& ready) {
    auto it = fences.find(name);
    if (it == fences.end()) return;
    for (auto& e : it->second.entrants) {
      ready.push_back([done = std::move(e.done), status, message] {
        done(FenceReply{status, message, {}});
      });
    }
    fences.erase(it);
  }

  void complete_fence(std::map<std::string, Fence>::iterator it, Ready& ready) {
    Fence& f = it->second;
    std::map<std::string, const std::string*> blob_of;
    for (const auto& e : f.entrants) blob_of[e.member] = &e.blob;
    std::vector<std::string> blobs;
    for (const auto& r : f.members) {
      for (std::uint32_t i = 0; i < r.count; ++i) {
        blobs.push_back(f.collect ? *blob_of[member_name(r.node, r.first + i)] : std::string());
      }
    }
    for (auto& e : f.entrants) {
      ready.push_back([done = std::move(e.done), blobs] { done(FenceReply{BackendStatus::ok, {}, blobs}); });
    }
    fences.erase(it);
  }

  void resolve_waiters(const std::string& key, const std::string& value, Ready& ready) {
    for (auto it = waiters.begin(); it != waiters.end();) {
      if (it->second.key == key) {
        ready.push_back([done = std::move(it->second.done), value] {
          done(BackendReply{BackendStatus::ok, {}, value});
        });
        it = waiters.erase(it);
      } else {
        ++it;
      }
    }
  }

  void fire_deadlines(Clock::time_point now, Ready& ready) {
    for (auto it = waiters.begin(); it != waiters.end();) {
      if (it->second.deadline <= now) {
        std::string key = it->second.key;
        ready.push_back([done = std::move(it->second.done), key] {
          done(BackendReply{BackendStatus::timeout, "timed out waiting for key '" + key + "'", {}});
        });
        it = waiters.erase(it);
      } else {
        ++it;
      }
    }
    std::vector<std::string> expired;
    for (const auto& [name, f] : fences) {
      for (const auto& e : f.entrants) {
        if (e.deadline <= now) {
          expired.push_back(name);
          break;
        }
      }
    }
    for (const auto& name : expired) {
      fail_fence(name, BackendStatus::timeout, "fence '" + name + "' timed out", ready);
    }
  }

  Clock::time_point next_deadline() const {
    auto next = Clock::time_point::max();
    for (const auto& [id, w] : waiters) next = std::min(next, w.deadline);
    for (const auto& [name, f] : fences) {
      for (const auto& e : f.entrants) next = std::min(next, e.deadline);
    }
    return next;
  }

  void timer_loop() {
    std::unique_lock lock(mu);
    while (!stopping) {
      auto next = next_deadline();
      if (next == Clock::time_point::max()) {
        wake.wait(lock);
      } else {
        wake.wait_until(lock, next);
      }
      Ready ready;
      fire_deadlines(Clock::now(), ready);
      if (!ready.empty()) {
        lock.unlock();
        for (auto& f : ready) f();
        lock.lock();
      }
    }
  }
};

namespace {

class InProcessMember final : public Backend {
 public:
  using State = InProcessControlPlane::State;
  InProcessMember(std::shared_ptr<State> state, std::string node, std::uint32_t replica)
      : state_(std::move(state)), node_(std::move(node)), replica_(replica),
        name_(member_name(node_, replica_)) {}

  const std::string& node() const override { return node_; }
  std::uint32_t replica() const override { return replica_; }

  void fence(FenceCall call, std::function<void(FenceReply)> done) override {
    Ready ready;
    {
      std::lock_guard lock(state_->mu);
      fence_locked(std::move(call), std::move(done), ready);
      state_->wake.notify_all();
    }
    for (auto& f : ready) f();
  }

  void put(std::string key, std::string value, Scope scope,
           std::function<void(BackendReply)> done) override {
    store(std::move(key), std::move(value), scope, false, std::move(done));
  }

  void create(std::string key, std::string value, Scope scope,
              std::function<void(BackendReply)> done) override {
    store(std::move(key), std::move(value), scope, true, std::move(done));
  }

  void get(std::string key, std::function<void(BackendReply)> done) override {
    BackendReply reply;
    {
      std::lock_guard lock(state_->mu);
      auto it = state_->kv.find(key);
      if (it == state_->kv.end()) {
        reply = {BackendStatus::not_found, "no key '" + key + "'", {}};
      } else {
        reply.value = it->second.value;
      }
    }
    done(std::move(reply));
  }

  void wait_for(std::string key, std::chrono::milliseconds timeout,
                std::function<void(BackendReply)> done) override {
    std::optional<std::string> value;
    {
      std::lock_guard lock(state_->mu);
      auto it = state_->kv.find(key);
      if (it != state_->kv.end()) {
        value = it->second.value;
      } else {
        state_->waiters.emplace(state_->next_waiter++,
                                State::Waiter{std::move(key), deadline_after(timeout), std::move(done)});
        state_->wake.notify_all();
        return;
      }
    }
    done(BackendReply{BackendStatus::ok, {}, std::move(value)});
  }

  void erase(std::string key, std::function<void(BackendReply)> done) override {
    bool erased;
    {
      std::lock_guard lock(state_->mu);
      erased = state_->kv.erase(key) > 0;
    }
    done(erased ? BackendReply{} : BackendReply{BackendStatus::not_found, "no key '" + key + "'", {}});
  }

  void watch_members(std::function<void(const MemberEnded&)> on_ended) override {
    std::lock_guard lock(state_->mu);
    state_->watchers.push_back(std::move(on_ended));
  }

 private:
  void store(std::string key, std::string value, Scope scope, bool only_new,
             std::function<void(BackendReply)> done) {
    Ready ready;
    BackendReply reply;
    {
      std::lock_guard lock(state_->mu);
      if (only_new && state_->kv.count(key) != 0) {
        reply = {BackendStatus::exists, "key '" + key + "' already exists", {}};
      } else {
        state_->kv[key] = State::Entry{value, scope, name_};
        state_->resolve_waiters(key, value, ready);
      }
    }
    for (auto& f : ready) f();
    done(std::move(reply));
  }

  void fence_locked(FenceCall call, std::function<void(FenceReply)> done, Ready& ready) {
    State& s = *state_;
    auto reply_now = [&](BackendStatus status, std::string message) {
      ready.push_back([done = std::move(done), status, message = std::move(message)] {
        done(FenceReply{status, message, {}});
      });
    };
    if (!in_ranges(call.members, node_, replica_)) {
      reply_now(BackendStatus::error, "fence '" + call.name + "': " + name_ + " is not in its member set");
      return;
    }
    for (const auto& [name, how] : s.ended) {
      if (in_ranges(call.members, how.node, how.replica)) {
        reply_now(BackendStatus::member_failed,
                  "fence '" + call.name + "' cannot complete: " + name + " " + ended_how(how));
        return;
      }
    }
    auto it = s.fences.find(call.name);
    if (it == s.fences.end()) {
      State::Fence f;
      f.members = call.members;
      f.collect = call.collect;
      it = s.fences.emplace(call.name, std::move(f)).first;
    } else if (it->second.members != call.members) {
      reply_now(BackendStatus::error, "fence '" + call.name + "': participants disagree on its members");
      return;
    }
    for (const auto& e : it->second.entrants) {
      if (e.member == name_) {
        reply_now(BackendStatus::error, "fence '" + call.name + "': " + name_ + " entered it twice");
        return;
      }
    }
    it->second.entrants.push_back(
        State::Entrant{name_, std::move(call.blob), deadline_after(call.timeout), std::move(done)});
    std::uint64_t total = 0;
    for (const auto& r : it->second.members) total += r.count;
    if (it->second.entrants.size() == total) s.complete_fence(it, ready);
  }

  std::shared_ptr<State> state_;
  std::string node_;
  std::uint32_t replica_;
  std::string name_;
};

}  // namespace

InProcessControlPlane::InProcessControlPlane() : state_(std::make_shared<State>()) {
  state_->timer = std::thread([s = state_.get()] { s->timer_loop(); });
}

InProcessControlPlane::~InProcessControlPlane() {
  {
    std::lock_guard lock(state_->mu);
    state_->stopping = true;
  }
  state_->wake.notify_all();
  state_->timer.join();
}

std::shared_ptr<Backend> InProcessControlPlane::member(std::string node, std::uint32_t replica) {
  {
    std::lock_guard lock(state_->mu);
    state_->ended.erase(member_name(node, replica));  // a new attempt of an ended member
  }
  return std::make_shared<InProcessMember>(state_, std::move(node), replica);
}

void InProcessControlPlane::end_member(const MemberEnded& how) {
  Ready ready;
  std::vector<std::function<void(const MemberEnded&)>> watchers;
  {
    std::lock_guard lock(state_->mu);
    const std::string name = member_name(how.node, how.replica);
    state_->ended[name] = how;
    // As the rendezvous: a task that finished (exit 0) keeps its task keys.
    const bool withdraw = how.failed || how.exit_status != 0;
    for (auto it = state_->kv.begin(); it != state_->kv.end();) {
      if (withdraw && it->second.scope == Scope::task && it->second.owner == name) {
        it = state_->kv.erase(it);
      } else {
        ++it;
      }
    }
    std::vector<std::string> doomed;
    for (const auto& [fence_name, f] : state_->fences) {
      if (in_ranges(f.members, how.node, how.replica)) doomed.push_back(fence_name);
    }
    for (const auto& fence_name : doomed) {
      state_->fail_fence(fence_name, BackendStatus::member_failed,
                         "fence '" + fence_name + "' cannot complete: " + name + " " + ended_how(how),
                         ready);
    }
    watchers = state_->watchers;
  }
  for (auto& f : ready) f();
  for (auto& w : watchers) w(how);
}

std::optional<std::string> InProcessControlPlane::value(const std::string& key) const {
  std::lock_guard lock(state_->mu);
  auto it = state_->kv.find(key);
  if (it == state_->kv.end()) return std::nullopt;
  return it->second.value;
}

std::size_t InProcessControlPlane::pending_fences() const {
  std::lock_guard lock(state_->mu);
  return state_->fences.size();
}

}  // namespace slipway::pmix
