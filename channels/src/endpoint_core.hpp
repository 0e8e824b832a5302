// The state machine behind Endpoint, Handle and Responder. Everything in it
// but the members marked "any thread" runs on the owner of the worker (the
// progress thread, or a caller driving the worker: see progress_loop.hpp),
// one thread at a time, so it needs no locks of its own: UCX callbacks only
// queue events, which after_progress() handles once ucp_worker_progress has
// returned.
//
// Caller side: one Peer per resolved or connected Handle (its address, its
// link, its calls in flight and those waiting for an address).
// Callee side: one Caller per remote endpoint that said hello (the link
// replies go through), the registered methods, and the bounds on
// queued requests and bytes being received.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "courier_auth.hpp"
#include "handler_pool.hpp"
#include "link.hpp"
#include "progress_loop.hpp"
#include "slipway/channels/endpoint.hpp"
#include "spare_nodes.hpp"
#include "tcp_transport.hpp"
#include "slipway/channels/wire.hpp"

namespace slipway::channels::detail {

struct CallResult {
  Bytes value;
  std::exception_ptr error;
};
using CallDone = std::function<void(CallResult&&)>;

// Where a blocking call's outcome lands (EndpointCore::call). Shared by the
// calling thread and its Call: a completion that comes after the caller
// left by an exception writes into no gone stack frame. Each thread reuses
// its last one once no Call holds it (reusable()): no allocation per call.
struct CallWaiter {
  std::mutex mutex;
  std::condition_variable ready;
  std::atomic<bool> done{false};
  CallResult result;
  // Any thread: stores the outcome and wakes the caller.
  void complete(CallResult&& outcome) {
    std::lock_guard lock(mutex);
    result = std::move(outcome);
    done.store(true, std::memory_order_release);
    ready.notify_one();
  }
  // This thread's waiter, empty and held by no call.
  static std::shared_ptr<CallWaiter> reusable();
};

// What UCX callbacks and operations hand to the owner's after_progress().
struct Event {
  enum class Type {
    request,         // header + data received for the callee side
    reply,           // header + data received for the caller side
    rejected,        // a request refused before its payload was received
    reply_refused,   // a reply refused before its payload was received
    send_done,       // a call's send finished (id = call), with status
    peer_failed,     // a caller-side UCX endpoint failed (id = peer)
    caller_failed,   // a callee-side UCX endpoint failed (id = caller)
  };
  Type type = Type::request;
  wire::Header header;
  Bytes data;
  std::uint64_t id = 0;
  std::uint64_t generation = 0;
  ucs_status_t status = UCS_OK;
  wire::RemoteStatus reject_status = wire::RemoteStatus::bad_request;
  std::string message;
};

// Caller side: one callee as one Handle (and its copies) sees it.
struct Peer {
  std::string label;                // "learner.0"
  std::string where;                // where its address comes from, for messages
  std::optional<Bytes> address;     // current address, if known
  std::unique_ptr<Link> link;      // connected to `address`, once used
  std::uint64_t generation = 0;     // of `ep`, to ignore late failure events
  std::unordered_set<std::uint64_t> in_flight;  // calls sent on `ep` (and held for it)
  std::deque<std::uint64_t> waiting;            // calls waiting for an address
  // Over shared memory: the request bytes of the calls sent and not yet
  // answered, and the calls held back in order until replies make room
  // (EndpointOptions::max_shared_memory_bytes_in_flight).
  std::size_t bytes_in_flight = 0;
  std::deque<std::uint64_t> held;
  bool released = false;            // no Handle left; forget once idle
  // The address whose connection last failed, and when: calls wait for a
  // new address (a restarted callee publishes one) and retry this one only
  // after kReconnectDelay.
  std::optional<Bytes> failed_address;
  std::chrono::steady_clock::time_point failed_at;
  bool retry_scheduled = false;
  // Replies received on `ep` (since it connected), and when the last came:
  // a timeout's message tells a callee that answers nothing on this
  // connection from one that answers others but not this call.
  std::uint64_t replies = 0;
  std::chrono::steady_clock::time_point last_reply;
  // A call on `ep` timed out: the next one is preceded by a hello again,
  // so that a callee that dropped ours (it had no place for another caller
  // then) or forgot us (its connection to us failed) takes us back.
  bool hello_due = false;
  // The challenge-response on `ep`: calls wait until the callee's
  // challenge proved it knows the secret and our proof is sent.
  wire::Nonce nonce{};              // of our last hello on `ep`
  bool admitted = false;            // our proof is sent on `ep`
  std::uint64_t callee = 0;         // its endpoint id, proven by its challenge
};

inline constexpr std::chrono::milliseconds kReconnectDelay{1000};
inline constexpr std::chrono::milliseconds kLingerLimit{1000};

struct Call {
  std::uint64_t peer = 0;
  std::string method;
  Bytes request;                    // until transmitted
  bool oneway = false;
  bool transmitted = false;
  bool held = false;                // waits for room on a shared-memory link
  std::size_t bytes = 0;            // counted in its peer's bytes_in_flight
  std::chrono::milliseconds timeout{0};
  ProgressLoop::TimerKey timer;
  CallDone done;                    // the outcome goes here, or (when set) to:
  std::shared_ptr<CallWaiter> waiter;
};

// Callee side: one remote endpoint that calls us. It exists only from a
// hello whose address passed the worker's AddressCheck and connected, until
// its last goodbye or its connection fails; requests from a sender without
// one are dropped unread.
struct Caller {
  std::string label;                // printable (rendezvous::printable)
  Bytes address;
  std::unique_ptr<Link> link;      // replies go here
  std::uint64_t generation = 0;
  std::unordered_set<std::uint64_t> connections;  // the caller's, from hellos until goodbyes
};

// Callee side: a hello answered by a challenge and not yet proven. Kept
// apart from the admitted callers, bounded (kMaxPendingCallers, the oldest
// dropped) and short-lived (kPendingLimit): a hello costs its sender no
// secret, so what it makes the callee keep must not crowd out callers.
struct PendingCaller {
  std::string label;
  Bytes address;
  std::unique_ptr<Link> link;      // a new connection back, or null: the admitted caller's
  std::uint64_t generation = 0;
  std::uint64_t connection = 0;
  wire::Nonce caller_nonce{};
  wire::Nonce callee_nonce{};
  std::chrono::steady_clock::time_point since;
};

inline constexpr std::size_t kMaxPendingCallers = 256;
// A hello's sender and the connection number it gave.
using PendingKey = std::pair<std::uint64_t, std::uint64_t>;
inline constexpr std::chrono::milliseconds kPendingLimit{10000};

class EndpointCore : public std::enable_shared_from_this<EndpointCore> {
 public:
  explicit EndpointCore(EndpointOptions options);
  ~EndpointCore();
  EndpointCore(const EndpointCore&) = delete;
  EndpointCore& operator=(const EndpointCore&) = delete;

  // Any thread.
  void start();
  void shutdown();
  bool on_progress_thread() const noexcept { return loop_->on_owner_thread(); }
  // This endpoint's courier address (courier_address.hpp).
  const Bytes& address() const noexcept { return address_; }
  const std::string& name() const noexcept { return name_; }
  const EndpointOptions& options() const noexcept { return options_; }
  std::chrono::milliseconds timeout_or_default(Timeout timeout) const;
  EndpointStats stats() const noexcept;

  void add_method(const std::string& method, AsyncHandler handler, MethodOrder order = MethodOrder::arrival);
  // A new peer; `address` empty means "wait for set_peer_address".
  std::uint64_t open_peer(std::string label, std::string where, std::optional<Bytes> address);
  void release_peer(std::uint64_t peer);
  void set_peer_address(std::uint64_t peer, std::optional<Bytes> address);
  void start_call(std::uint64_t peer, std::string method, Bytes request, Timeout timeout,
                  bool oneway, CallDone done);
  // A blocking call: the calling thread drives the worker while it waits
  // when it can (EndpointOptions::caller_progress), for as long as `window`
  // says (learnt from the round trips to this callee). Not on the owner.
  Bytes call(std::uint64_t peer, std::string method, Bytes request, Timeout timeout,
             PollWindow& window);
  // From a Responder: the call's answer (kind reply_ok or reply_error).
  void respond(std::uint64_t caller, std::uint64_t call, bool oneway, wire::Kind kind,
               wire::RemoteStatus status, Payload data);

  // Owner only (used by UCX callbacks and operations).
  void push(Event event);
  std::shared_ptr<ucx::Worker> worker() const { return worker_; }
  const std::shared_ptr<std::size_t>& sends_in_flight() const { return sends_in_flight_; }
  std::size_t& receiving_bytes() { return receiving_bytes_; }

 private:
  template <typename Fn>
  void run_on_loop(Fn&& fn);  // runs fn on the owner and waits

  // UCX active-message callbacks (owner, noexcept).
  static ucs_status_t on_request_am(void* arg, const void* header, std::size_t header_length,
                                    void* data, std::size_t length,
                                    const ucp_am_recv_param_t* param) noexcept;
  static ucs_status_t on_reply_am(void* arg, const void* header, std::size_t header_length,
                                  void* data, std::size_t length,
                                  const ucp_am_recv_param_t* param) noexcept;
  // One message arrived (from UCX or the TCP transport): its header, and
  // its payload in `data` or, `deferred`, to be read through `read_payload`
  // (UCS_INPROGRESS when it was). Sets `*trusted` (when given: only the
  // TCP transport orders evictions by it) when the message shows its
  // connection carries the program's own traffic.
  ucs_status_t receive(bool request, ByteView header, const void* data, std::size_t length,
                       bool deferred, const PayloadReader& read_payload, bool* trusted) noexcept;
  ucs_status_t receive_ucx(bool request, const void* header, std::size_t header_length,
                           void* data, std::size_t length,
                           const ucp_am_recv_param_t* param) noexcept;
  ucs_status_t receive_tcp(unsigned am_id, ByteView header, std::byte* data, std::size_t length,
                           const PayloadReader* read_payload, bool& trusted) noexcept;
  // A reply from the callee our call went to, proven by its challenge.
  bool from_proven_callee(const wire::Header& header) const;

  // A link to the endpoint at a peer's courier address: UCX shared memory
  // on the same host, else the TCP transport (else UCX where only it can
  // reach). Throws ChannelError (Errc::protocol for a malformed address).
  std::unique_ptr<Link> connect_link(ByteView address, Link::ErrorCallback on_error);

  void after_progress();
  bool has_events() const noexcept { return !events_.empty(); }
  void handle(Event& event);
  void handle_contained(Event& event);  // handle(), a failure leaving the call to time out
  void stop_everything();

  // Caller side (core_calls.cpp).
  // Throws ChannelError for a method name or request out of bounds.
  void check_call(const std::string& method, const Bytes& request) const;
  // Counts the call and begins it on the owner (posted when this thread
  // is not the owner).
  void submit_call(std::uint64_t peer_id, std::string method, Bytes request,
                   std::chrono::milliseconds wait, bool oneway, CallDone done,
                   ProgressLoop::Clock::time_point started, std::shared_ptr<CallWaiter> waiter);
  // The call's timer runs from `started`; its outcome goes to `done`, or
  // to `waiter` when set.
  void begin_call(std::uint64_t peer_id, std::string method, Bytes request,
                  std::chrono::milliseconds wait, bool oneway, CallDone done,
                  ProgressLoop::Clock::time_point started,
                  std::shared_ptr<CallWaiter> waiter = nullptr);
  void connect_peer(std::uint64_t peer_id, Peer& peer);
  void say_hello(std::uint64_t peer_id, Peer& peer);
  bool can_transmit(std::uint64_t peer_id, Peer& peer);  // admitted; says hello again when one is due
  void on_challenge(const wire::Header& header, ByteView data);
  bool connect_or_fail(std::uint64_t peer_id, Peer& peer, std::uint64_t call_id);
  bool ready_to_send(const Peer& peer) const;
  void flush_waiting(std::uint64_t peer_id);
  // Sends the call, or holds it back behind the calls in flight to a
  // shared-memory peer (release_held sends it once replies make room).
  void transmit(std::uint64_t call_id, Call& call, Peer& peer);
  void send_call(std::uint64_t call_id, Call& call, Peer& peer);
  void release_held(std::uint64_t peer_id);
  void on_reply(const wire::Header& header, Bytes data);
  void on_reply_refused(std::uint64_t call_id, wire::RemoteStatus status, std::string message);
  void on_callee_leaving(const wire::Header& header);
  void on_send_done(std::uint64_t call_id, ucs_status_t status);
  void on_peer_failed(std::uint64_t peer_id, std::uint64_t generation, ucs_status_t status);
  void expire(std::uint64_t call_id);
  void finish(std::uint64_t call_id, CallResult result);
  void fail(std::uint64_t call_id, Errc code, const std::string& message,
            std::string remote_message = {});
  void fail_in_flight(Peer& peer, Errc code, const std::string& why);
  void maybe_forget_peer(std::uint64_t peer_id);
  std::string label_of(std::uint64_t peer_id) const;

  // Callee side (core_serve.cpp).
  void on_request(const wire::Header& header, Bytes data);
  void on_hello(const wire::Header& header, ByteView data);
  void send_challenge(Link& link, std::uint64_t sender, const PendingCaller& pending);
  void replace_pending(const PendingKey& key, PendingCaller pending);
  void make_room_for_pending();  // drops expired hellos, and the oldest when full
  // In the receive callback: whether a proof answers the pending challenge
  // of its sender (and if so, queues the sender's admission).
  bool proof_holds(const wire::Header& header, ByteView data);
  void admit(std::uint64_t sender, std::uint64_t connection);
  void refuse_unproven(const std::string& why, const std::string& where);
  // Whether requests from `sender` may be received: it is an admitted
  // caller (or its proof passed and its admission is queued ahead of them).
  bool announced(std::uint64_t sender) const;
  void forget_caller(std::uint64_t sender);
  void proof_dequeued(std::uint64_t sender);
  void on_goodbye(const wire::Header& header);
  void on_rejected(const wire::Header& header, wire::RemoteStatus status, std::string message);
  void on_caller_failed(std::uint64_t caller, std::uint64_t generation);
  void dispatch(const wire::Header& header, Bytes data);
  void send_reply(std::uint64_t caller, std::uint64_t call, wire::Kind kind,
                  wire::RemoteStatus status, Payload data);
  Caller* new_caller(std::uint64_t sender);
  void warn_once(bool& warned, const std::string& message);

  // Sending (core_send.cpp): a message whose header and payload live until
  // its link is done (counted in the endpoint's in_flight());
  // `call_id` 0 = not a call.
  void send_message(Link& link, unsigned am_id, const wire::Header& header, Payload payload,
                    std::uint64_t call_id, bool report_success, std::uint32_t am_flags = 0);
  // Retires `link`: sends `last` (a goodbye, or a callee's leaving notices)
  // and closes it once nothing of ours is in flight on it (at most
  // kLingerLimit later); a failed one is closed at once.
  void linger(std::unique_ptr<Link> link, unsigned am_id = 0,
              const std::vector<wire::Header>& last = {});
  void close_idle_lingering();

  EndpointOptions options_;
  std::string name_;
  std::uint64_t id_;  // this endpoint's identity on the wire (random)
  std::shared_ptr<ucx::Worker> worker_;
  std::unique_ptr<TcpTransport> tcp_;  // null: TCP not among the transports
  std::string host_key_;
  bool ucx_published_ = false;         // peers may reach this endpoint by UCX
  bool ucx_shared_memory_ = false;     // ... and UCX has shared memory here
  Bytes address_;
  std::unique_ptr<ProgressLoop> loop_;
  std::unique_ptr<HandlerPool> pool_;
  std::atomic<std::uint64_t> next_peer_{0};
  std::atomic<bool> shut_down_{false};
  struct Counters {
    std::atomic<std::uint64_t> calls_started{0};
    std::atomic<std::uint64_t> requests_received{0};
    std::atomic<std::uint64_t> eager_receives{0};
    std::atomic<std::uint64_t> rendezvous_receives{0};
    std::atomic<std::uint64_t> refused{0};
    std::atomic<std::uint64_t> callers{0};
    std::atomic<std::uint64_t> calls_without_hello{0};
    std::atomic<std::uint64_t> refused_addresses{0};
    std::atomic<std::uint64_t> refused_proofs{0};
  } counters_;
  CourierAuth auth_;

  // Owner state.
  bool stopping_ = false;
  std::deque<Event> events_;
  std::uint64_t next_call_ = 0;
  std::unordered_map<std::uint64_t, Peer> peers_;
  std::unordered_map<std::uint64_t, Call> calls_;
  // Nodes of finished calls and of their ids in a peer's in_flight, reused
  // by the next calls (no allocation per call for either).
  SpareNodes<std::unordered_map<std::uint64_t, Call>> spare_calls_;
  SpareNodes<std::unordered_set<std::uint64_t>> spare_in_flight_;
  std::unordered_map<std::uint64_t, Caller> callers_;
  // Hellos answered by a challenge, not yet proven.
  std::map<PendingKey, PendingCaller> pending_;
  // Proven in the receive callback, admitted when their event is handled.
  std::map<PendingKey, PendingCaller> proven_;
  // Proofs that held, queued as events and not handled yet, per sender.
  std::unordered_map<std::uint64_t, std::size_t> proofs_queued_;
  std::unordered_map<std::string, std::shared_ptr<AsyncHandler>> methods_;
  std::unordered_set<std::string> bulk_methods_;  // MethodOrder::bulk
  std::deque<Event> bulk_requests_;              // this turn's, handled last
  std::size_t queued_requests_ = 0;
  // Sends of this endpoint in flight on any UCX endpoint (read by the loop).
  std::shared_ptr<std::size_t> sends_in_flight_ = std::make_shared<std::size_t>(0);
  std::size_t receiving_bytes_ = 0;
  std::uint64_t next_generation_ = 0;
  bool warned_callers_full_ = false;
  bool warned_without_hello_ = false;
  bool warned_bad_hello_ = false;
  bool warned_bad_proof_ = false;
  bool warned_bad_challenge_ = false;
  struct Lingering {
    std::unique_ptr<Link> link;
    ProgressLoop::TimerKey timer;
  };
  std::unordered_map<std::uint64_t, Lingering> lingering_;
  std::uint64_t next_linger_ = 0;
};

// What a Handle holds: the endpoint core, its peer, and the directory watch
// that keeps the peer's address current. Dropping it releases the peer.
struct PeerLease {
  std::shared_ptr<EndpointCore> core;
  std::uint64_t peer = 0;
  std::string name;
  std::unique_ptr<AddressDirectory::Watch> watch;
  // How long blocking calls to this callee poll (any thread).
  PollWindow window;
  ~PeerLease();
};

}  // namespace slipway::channels::detail
