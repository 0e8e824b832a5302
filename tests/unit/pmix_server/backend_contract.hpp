// The Backend contract (pmix_server/.../backend.hpp) as checks any
// implementation must pass: the in-process control plane (unit tests) and
// the rendezvous backend over a real server (integration tests) run the
// same ones through a Harness.
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "slipway/pmix/backend.hpp"

namespace slipway::pmix::contract {

using namespace std::chrono_literals;

struct Harness {
  virtual ~Harness() = default;
  virtual std::shared_ptr<Backend> member(const std::string& node, std::uint32_t replica) = 0;
  // Ends the member: failed (vanished) or left with `exit_status`.
  virtual void end(const std::string& node, std::uint32_t replica, bool failed, int exit_status) = 0;
  virtual std::optional<std::string> value(const std::string& key) = 0;
  virtual std::size_t pending_fences() = 0;
};

template <typename Reply>
struct Waiter {
  std::promise<Reply> promise;
  std::future<Reply> future = promise.get_future();
  std::function<void(Reply)> callback() {
    return [this](Reply r) { promise.set_value(std::move(r)); };
  }
  bool ready() { return future.wait_for(0s) == std::future_status::ready; }
  Reply get() {
    REQUIRE(future.wait_for(10s) == std::future_status::ready);
    return future.get();
  }
};

inline FenceCall fence_of(std::string name, std::uint32_t members, std::string blob,
                          std::chrono::milliseconds timeout = 0ms) {
  return FenceCall{std::move(name), {{"w", 0, members}}, true, std::move(blob), timeout};
}

// Polls `condition` for up to 5 s.
template <typename F>
bool eventually(F condition) {
  for (int i = 0; i < 500; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return condition();
}

inline void fence_completes_in_member_order(Harness& h) {
  auto a = h.member("w", 0), b = h.member("w", 1), c = h.member("w", 2);
  Waiter<FenceReply> wa, wb, wc;
  c->fence(fence_of("f", 3, "C"), wc.callback());
  a->fence(fence_of("f", 3, "A"), wa.callback());
  REQUIRE(eventually([&] { return h.pending_fences() == 1; }));
  CHECK_FALSE(wa.ready());
  b->fence(fence_of("f", 3, ""), wb.callback());
  for (auto* w : {&wa, &wb, &wc}) {
    FenceReply r = w->get();
    CHECK(r.status == BackendStatus::ok);
    CHECK(r.blobs == std::vector<std::string>{"A", "", "C"});
  }
  CHECK(h.pending_fences() == 0);
}

inline void fence_fails_when_a_member_ends(Harness& h) {
  auto a = h.member("w", 0);
  auto b = h.member("w", 1);
  Waiter<FenceReply> wa;
  a->fence(fence_of("f", 2, "A"), wa.callback());
  REQUIRE(eventually([&] { return h.pending_fences() == 1; }));
  b.reset();
  h.end("w", 1, true, 0);
  FenceReply r = wa.get();
  CHECK(r.status == BackendStatus::member_failed);
  CHECK_THAT(r.message, Catch::Contains("w.1"));

  Waiter<FenceReply> again;  // entering after the end fails at once
  a->fence(fence_of("g", 2, "A"), again.callback());
  FenceReply late = again.get();
  CHECK(late.status == BackendStatus::member_failed);
  CHECK_THAT(late.message, Catch::Contains("w.1"));
}

inline void fence_times_out(Harness& h) {
  auto a = h.member("w", 0);
  auto b = h.member("w", 1);
  Waiter<FenceReply> wa;
  a->fence(fence_of("f", 2, "", 100ms), wa.callback());
  CHECK(wa.get().status == BackendStatus::timeout);
}

inline void keys_create_and_task_scope(Harness& h) {
  auto a = h.member("w", 0), b = h.member("w", 1);
  Waiter<BackendReply> p1, p2, c1, c2;
  a->put("task-key", "1", Scope::task, p1.callback());
  a->put("program-key", "2", Scope::program, p2.callback());
  CHECK(p1.get().status == BackendStatus::ok);
  CHECK(p2.get().status == BackendStatus::ok);
  b->create("program-key", "3", Scope::program, c1.callback());
  CHECK(c1.get().status == BackendStatus::exists);
  b->create("fresh", "4", Scope::program, c2.callback());
  CHECK(c2.get().status == BackendStatus::ok);
  Waiter<BackendReply> g;
  b->get("fresh", g.callback());
  CHECK(g.get().value == std::optional<std::string>("4"));

  // A task that finished (exit 0) keeps its task keys; a failed one loses them.
  auto done = h.member("x", 0);
  Waiter<BackendReply> p3;
  done->put("finished-key", "5", Scope::task, p3.callback());
  CHECK(p3.get().status == BackendStatus::ok);
  done.reset();
  h.end("x", 0, false, 0);
  a.reset();
  h.end("w", 0, true, 0);
  CHECK(eventually([&] { return !h.value("task-key").has_value(); }));
  CHECK(h.value("program-key") == std::optional<std::string>("2"));
  CHECK(h.value("finished-key") == std::optional<std::string>("5"));

  Waiter<BackendReply> e1, e2, missing;
  b->erase("fresh", e1.callback());
  CHECK(e1.get().status == BackendStatus::ok);
  b->erase("fresh", e2.callback());
  CHECK(e2.get().status == BackendStatus::not_found);
  b->get("fresh", missing.callback());
  CHECK(missing.get().status == BackendStatus::not_found);
}

inline void wait_for_answers_or_times_out(Harness& h) {
  auto a = h.member("w", 0), b = h.member("w", 1);
  Waiter<BackendReply> waiting, timed_out, now;
  a->wait_for("later", 0ms, waiting.callback());
  a->wait_for("never", 100ms, timed_out.callback());
  CHECK(timed_out.get().status == BackendStatus::timeout);
  CHECK_FALSE(waiting.ready());
  Waiter<BackendReply> put;
  b->put("later", "v", Scope::program, put.callback());
  CHECK(waiting.get().value == std::optional<std::string>("v"));
  // The put's own reply may come after the wait's: take it before `put`
  // goes out of scope, or it would land in a destroyed Waiter.
  CHECK(put.get().status == BackendStatus::ok);
  a->wait_for("later", 100ms, now.callback());
  CHECK(now.get().value == std::optional<std::string>("v"));
}

inline void watchers_hear_members_end(Harness& h) {
  auto a = h.member("w", 0);
  auto b = h.member("w", 1);
  auto c = h.member("v", 0);
  std::mutex mutex;
  std::vector<MemberEnded> heard;
  a->watch_members([&](const MemberEnded& e) {
    std::lock_guard lock(mutex);
    heard.push_back(e);
  });
  b.reset();
  h.end("w", 1, false, 3);
  REQUIRE(eventually([&] {
    std::lock_guard lock(mutex);
    return heard.size() == 1;
  }));
  c.reset();
  h.end("v", 0, true, 0);
  REQUIRE(eventually([&] {
    std::lock_guard lock(mutex);
    return heard.size() == 2;
  }));
  std::lock_guard lock(mutex);
  CHECK(heard[0].node == "w");
  CHECK(heard[0].replica == 1);
  CHECK_FALSE(heard[0].failed);
  CHECK(heard[0].exit_status == 3);
  CHECK(heard[1].node == "v");
  CHECK(heard[1].failed);
}

}  // namespace slipway::pmix::contract
