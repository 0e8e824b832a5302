// InProcessControlPlane: the Backend contract (backend.hpp) held in one
// process: a key-value store with scopes, wait-for-key, fences over member
// ranges and member-ended events. A test double (no production target links
// it): the PMIx host tests act as remote members through member().
//
// Contract: thread-safe. member(node, replica) gives the Backend of one
// member; end_member() ends it as the rendezvous would (its task keys are
// withdrawn, fences that include it fail, watchers hear of it). Callbacks
// run without the control plane's lock held, on the calling thread or on
// its timer thread. Destroying it stops the timer thread: pending waits and
// fences are then never answered, so it must outlive its members' use.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "slipway/pmix/backend.hpp"

namespace slipway::pmix {

class InProcessControlPlane {
 public:
  InProcessControlPlane();
  ~InProcessControlPlane();
  InProcessControlPlane(const InProcessControlPlane&) = delete;
  InProcessControlPlane& operator=(const InProcessControlPlane&) = delete;

  std::shared_ptr<Backend> member(std::string node, std::uint32_t replica);
  void end_member(const MemberEnded& how);

  // What the tests look at.
  std::optional<std::string> value(const std::string& key) const;
  std::size_t pending_fences() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace slipway::pmix
