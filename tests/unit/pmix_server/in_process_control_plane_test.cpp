// The in-process control plane against the Backend contract
// (backend_contract.hpp), plus what only it offers.
#include <catch2/catch.hpp>

#include "backend_contract.hpp"
#include "pmix/in_process_control_plane.hpp"

using namespace slipway::pmix;
using namespace slipway::pmix::contract;

namespace {

struct InProcessHarness : Harness {
  InProcessControlPlane plane;
  std::shared_ptr<Backend> member(const std::string& node, std::uint32_t replica) override {
    return plane.member(node, replica);
  }
  void end(const std::string& node, std::uint32_t replica, bool failed, int exit_status) override {
    plane.end_member(MemberEnded{node, replica, failed, exit_status, failed ? "lost" : ""});
  }
  std::optional<std::string> value(const std::string& key) override { return plane.value(key); }
  std::size_t pending_fences() override { return plane.pending_fences(); }
};

}  // namespace

TEST_CASE("backend: in-process fence completes with blobs in member order", "[pmix][backend]") {
  InProcessHarness h;
  fence_completes_in_member_order(h);
}

TEST_CASE("backend: in-process fence fails when a member ends", "[pmix][backend]") {
  InProcessHarness h;
  fence_fails_when_a_member_ends(h);
}

TEST_CASE("backend: in-process fence times out", "[pmix][backend]") {
  InProcessHarness h;
  fence_times_out(h);
}

TEST_CASE("backend: in-process keys (create, task scope, erase)", "[pmix][backend]") {
  InProcessHarness h;
  keys_create_and_task_scope(h);
}

TEST_CASE("backend: in-process wait_for answers or times out", "[pmix][backend]") {
  InProcessHarness h;
  wait_for_answers_or_times_out(h);
}

TEST_CASE("backend: in-process watchers hear members end", "[pmix][backend]") {
  InProcessHarness h;
  watchers_hear_members_end(h);
}

TEST_CASE("backend: in-process fences with disagreeing member sets are refused", "[pmix][backend]") {
  InProcessHarness h;
  auto a = h.member("w", 0), b = h.member("w", 1);
  Waiter<FenceReply> x, y;
  a->fence(fence_of("h", 2, ""), x.callback());
  b->fence(fence_of("h", 3, ""), y.callback());
  CHECK(y.get().status == BackendStatus::error);
  CHECK_FALSE(x.ready());
}
