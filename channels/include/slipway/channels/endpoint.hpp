// Courier RPC over UCX: a service creates an Endpoint, registers methods
// (a name and a handler over bytes; typed helpers in typed.hpp), and
// publishes its UCX worker address under its node and replica. A caller
// resolves a Handle by node name (one replica, or all) and calls it:
// blocking call(), future-returning call_async(), one-way send(), each with
// a timeout. docs/channels.md is the user's guide.
//
// Threading: each Endpoint owns one UCX worker and one progress thread.
// One thread at a time progresses the worker: the progress thread, or,
// while that thread sleeps, a thread blocked in Handle::call that drives the
// worker itself until its reply comes (or a short window passes) and then
// hands it back (EndpointOptions::caller_progress). Every public function
// may be called from any thread; results come back through futures or the
// blocking call. Handlers run on the thread progressing the worker unless
// EndpointOptions::handler_threads > 0. Idle, the progress thread sleeps in
// epoll on the worker's event fd (after ucp_worker_arm); after activity it
// polls for a short, bounded window first (busy_poll, poll_limit).
//
// Failure: every function throws ChannelError. A handler's exception (or
// Responder::fail) reaches the caller as Errc::remote_error with its message.
// When a resolved callee publishes a new address (it restarted), the handle
// follows it: calls in flight fail with Errc::peer_restarted, later calls go
// to the new address. Calls made before any address is known wait for one
// until their timeout.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "slipway/channels/bytes.hpp"
#include "slipway/channels/directory.hpp"
#include "slipway/channels/error.hpp"
#include "slipway/channels/gathered.hpp"
#include "slipway/channels/options.hpp"

namespace slipway::channels {

namespace detail {
class EndpointCore;
struct PeerLease;
}  // namespace detail

using Timeout = std::optional<std::chrono::milliseconds>;  // nullopt: the endpoint's default

// Completes one received call. Movable; reply() or fail() once, from any
// thread. Dropping it unanswered fails the call ("returned without replying").
class Responder {
 public:
  Responder(Responder&&) noexcept;
  Responder& operator=(Responder&&) noexcept;
  ~Responder();

  void reply(Bytes result);
  // A reply in pieces (gathered.hpp), sent without joining them: its
  // shared pieces are held until the reply has left.
  void reply_gathered(Gathered result);
  void fail(std::string message);
  // The request's bytes, handed over without a copy: the ByteView the
  // handler was given stays valid as long as they live (a handler keeps
  // parts of a request past its call). Only from within the handler's own
  // call; empty after the first take or once the handler has returned.
  Bytes take_request();
  const std::string& method() const noexcept;
  bool oneway() const noexcept;  // the caller wants no reply (send())

  struct State;  // opaque: the call being answered
  explicit Responder(std::shared_ptr<State> state);

 private:
  std::shared_ptr<State> state_;
};

// Counters of one endpoint since it started (readable from any thread).
struct EndpointStats {
  std::uint64_t calls_started = 0;        // calls and one-way sends made through its handles
  std::uint64_t requests_received = 0;    // calls and one-way sends dispatched to its methods
  std::uint64_t eager_receives = 0;       // payloads that arrived with their message
  std::uint64_t rendezvous_receives = 0;  // payloads fetched by UCX's rendezvous protocol
  std::uint64_t refused = 0;              // requests or replies refused (size, load)
  std::uint64_t callers = 0;              // caller endpoints known now (said hello, not gone)
  std::uint64_t calls_without_hello = 0;  // requests dropped: their sender was not admitted
  std::uint64_t refused_proofs = 0;       // hellos or challenges whose peer did not prove the secret
  std::uint64_t refused_addresses = 0;    // peers' worker addresses refused before UCX saw them
};

// Runs on a handler thread; returns the reply, or throws to fail the call.
using Handler = std::function<Bytes(ByteView request)>;
// Answers later through the Responder (e.g. from another thread).
using AsyncHandler = std::function<void(ByteView request, Responder responder)>;

// A caller's reference to one callee (node.replica, or an explicit address).
// Copies share the same connection; the connection closes with the last copy.
class Handle {
 public:
  Handle(const Handle&) = default;
  Handle& operator=(const Handle&) = default;
  ~Handle();

  // Blocks until the reply; the calling thread may progress the endpoint's
  // worker meanwhile (and run its handlers). Throws Errc::would_deadlock on
  // the thread progressing the endpoint's worker, i.e. from its handlers
  // (use call_async there, or handler_threads).
  Bytes call(const std::string& method, Bytes request, Timeout timeout = {}) const;
  std::future<Bytes> call_async(const std::string& method, Bytes request,
                                Timeout timeout = {}) const;
  // One-way: the future completes once the message has left (UCX finished
  // sending it); the callee's result and errors are not reported.
  std::future<void> send(const std::string& method, Bytes request, Timeout timeout = {}) const;

  // "learner.0", or the label given to Endpoint::connect.
  const std::string& name() const noexcept;

 private:
  friend class Endpoint;
  explicit Handle(std::shared_ptr<detail::PeerLease> lease);
  std::shared_ptr<detail::PeerLease> lease_;
};

// How a method's requests are ordered against the other requests that
// arrived in the same progress turn (what one poll of the UCX worker took in).
enum class MethodOrder {
  arrival,  // in arrival order (the default)
  bulk,     // after the turn's other requests, in arrival order among
            // themselves: large throughput-bound calls (a replay shard's
            // inserts) do not hold up small latency-bound ones (its samples)
            // that came in with them. Requests of one caller are reordered
            // too: a caller that needs a bulk call applied first waits for
            // its reply.
};

class Endpoint {
 public:
  // Creates the UCX context and worker and starts the progress thread.
  // `directory` is where publish() and resolve() go; without one only
  // connect() with explicit addresses works.
  explicit Endpoint(EndpointOptions options = {},
                    std::shared_ptr<AddressDirectory> directory = nullptr);
  // Stops serving: calls in flight through this endpoint's handles fail
  // with Errc::closed, callers connected to it see it leave.
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  // Registers (or replaces) a method; visible to calls received after it
  // returns. Names are 1..255 bytes.
  void register_method(const std::string& method, Handler handler);
  void register_async_method(const std::string& method, AsyncHandler handler,
                             MethodOrder order = MethodOrder::arrival);

  // This endpoint's UCX worker address (what publish() puts in the directory).
  const Bytes& address() const noexcept;
  const std::string& name() const noexcept;
  const EndpointOptions& options() const noexcept;
  EndpointStats stats() const noexcept;

  // Publishes address() as node.replica in the directory.
  void publish(const std::string& node, std::uint32_t replica);
  // Same, with SLIPWAY_NODE and SLIPWAY_REPLICA of this task; also declares
  // the node's replica count (SLIPWAY_REPLICAS) for resolve_all().
  void publish();

  // A handle to node.replica through the directory; it does not wait for
  // the address (calls do, up to their timeout).
  Handle resolve(const std::string& node, std::uint32_t replica = 0);
  // Handles to every replica of node, in replica order: of an elastic node,
  // the replicas it runs now (each call asks again: it follows resizes);
  // waits up to `timeout` for the directory to know how many there are.
  std::vector<Handle> resolve_all(const std::string& node,
                                  std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // The replicas resolve_all() resolves: an elastic node's live set, else
  // 0..replica_count()-1.
  std::vector<std::uint32_t> live_replicas(const std::string& node, std::chrono::milliseconds timeout);
  // How many replicas node has, as resolve_all() learns it; throws
  // Errc::not_resolved when that is not known within `timeout`.
  std::uint32_t replica_count(const std::string& node, std::chrono::milliseconds timeout);
  // A handle to an explicitly given worker address; `label` names it.
  Handle connect(ByteView address, const std::string& label = {});

  // Withdraws what publish() published and shuts down now (the destructor
  // does this too); idempotent.
  void close();

 private:
  AddressDirectory& directory(const char* what) const;
  std::shared_ptr<detail::EndpointCore> core_;
  std::shared_ptr<AddressDirectory> directory_;
  std::vector<std::pair<std::string, std::uint32_t>> published_;
};

}  // namespace slipway::channels
