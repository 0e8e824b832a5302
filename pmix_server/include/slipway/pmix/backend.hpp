// Backend: what the PMIx server host needs from the program's control plane,
// as seen by ONE member (one task) of the program: fences with blobs, a
// key-value store with scopes, wait-for-key and member-ended events. rendezvous_backend.hpp implements it over the rendezvous client;
// tests/lib/pmix/in_process_control_plane.hpp is an in-process implementation (a test double).
//
// Contract: every operation returns at once (watch_members may take one
// round trip to subscribe) and reports through its callback exactly once; the callback may run on any thread, even inside
// the call, so callers must not hold their own locks while calling. Keys
// live in one program-wide namespace. Scope::task keys are withdrawn when
// the member that put them fails or ends with a non-zero status (a member
// that finished with status 0 keeps them, as in the rendezvous). A fence completes when every member of its
// set has entered it under the same name, and then returns every member's
// blob (empty ones included, in member order); it fails at once when a
// member of the set has ended or ends, naming it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "slipway/pmix/mpi_world.hpp"

namespace slipway::pmix {

enum class BackendStatus {
  ok,
  not_found,      // get/erase of a missing key
  exists,         // create of a key that is already there
  timeout,        // wait_for or fence ran out of time
  member_failed,  // a fence member ended before the fence completed
  error,          // anything else (connection lost, limits); see message
};

struct BackendReply {
  BackendStatus status = BackendStatus::ok;
  std::string message;              // set when status != ok
  std::optional<std::string> value; // get / wait_for: the value when found
};

struct FenceCall {
  std::string name;                    // same on every participant
  std::vector<MemberRange> members;    // every member taking part
  bool collect = true;
  std::string blob;                    // this member's contribution
  std::chrono::milliseconds timeout{0};  // 0: no limit (a member's end still fails it)
};

struct FenceReply {
  BackendStatus status = BackendStatus::ok;
  std::string message;             // names the failed member on member_failed
  std::vector<std::string> blobs;  // one per member (collect), member order
};

// A member of the program that ended: left (with its exit status) or failed
// (vanished: lost connection, missed heartbeats).
struct MemberEnded {
  std::string node;
  std::uint32_t replica = 0;
  bool failed = false;
  int exit_status = 0;
  std::string reason;
};

enum class Scope { program, task };

class Backend {
 public:
  virtual ~Backend() = default;

  // (node, replica) of the member this backend acts for.
  virtual const std::string& node() const = 0;
  virtual std::uint32_t replica() const = 0;

  virtual void fence(FenceCall call, std::function<void(FenceReply)> done) = 0;
  virtual void put(std::string key, std::string value, Scope scope,
                   std::function<void(BackendReply)> done) = 0;
  // Puts only when the key is absent; BackendStatus::exists otherwise.
  virtual void create(std::string key, std::string value, Scope scope,
                      std::function<void(BackendReply)> done) = 0;
  virtual void get(std::string key, std::function<void(BackendReply)> done) = 0;
  // The value once the key exists; BackendStatus::timeout after `timeout`
  // (0: no limit).
  virtual void wait_for(std::string key, std::chrono::milliseconds timeout,
                        std::function<void(BackendReply)> done) = 0;
  virtual void erase(std::string key, std::function<void(BackendReply)> done) = 0;
  // Calls `on_ended` for every member of the program that ends from now on
  // (until the backend is destroyed), on any thread.
  virtual void watch_members(std::function<void(const MemberEnded&)> on_ended) = 0;
};

std::string_view to_string(BackendStatus status);

}  // namespace slipway::pmix
