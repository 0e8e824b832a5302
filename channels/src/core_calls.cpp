// The caller side of EndpointCore: peers and their addresses, connecting
// (with a hello that tells the callee where to reply), calls, replies,
// timeouts, and what happens to calls in flight when a callee restarts,
// leaves or fails.
// Over 500 lines, one concern: the caller's side of EndpointCore (its other
// sides are core_*.cpp already); peers, calls and their fates share one lock
// and one set of tables, which a split would spread over files.
#include <algorithm>
#include <optional>

#include "endpoint_core.hpp"
#include "slipway/channels/ucx/status.hpp"

namespace slipway::channels::detail {
namespace {

// What a caller sees for each way a callee can refuse or fail a call.
Errc errc_of(wire::RemoteStatus status) {
  switch (status) {
    case wire::RemoteStatus::handler_failed: return Errc::remote_error;
    case wire::RemoteStatus::no_such_method: return Errc::no_such_method;
    case wire::RemoteStatus::message_too_large: return Errc::message_too_large;
    case wire::RemoteStatus::overloaded: return Errc::overloaded;
    case wire::RemoteStatus::bad_request: return Errc::protocol;
  }
  return Errc::protocol;
}

using IdSet = std::unordered_set<std::uint64_t>;

// Inserts `id`, in a spare node when there is one.
void insert_id(IdSet& set, SpareNodes<IdSet>& spare, std::uint64_t id) {
  auto node = spare.take();
  if (node.empty()) {
    set.insert(id);
    return;
  }
  node.value() = id;
  auto inserted = set.insert(std::move(node));
  spare.keep(std::move(inserted.node));  // empty unless `id` was there
}

// Erases `id`, keeping its node for reuse.
void erase_id(IdSet& set, SpareNodes<IdSet>& spare, std::uint64_t id) {
  spare.keep(set.extract(id));
}

// A call's outcome to its waiter when it has one, else to its completion.
void deliver(const CallDone& done, CallWaiter* waiter, CallResult&& result) {
  if (waiter) {
    waiter->complete(std::move(result));
  } else {
    done(std::move(result));
  }
}

}  // namespace

std::shared_ptr<CallWaiter> CallWaiter::reusable() {
  thread_local std::shared_ptr<CallWaiter> last;
  if (last && last.use_count() == 1) {
    // No call holds it any more: what its last completion wrote (before
    // that call dropped it) is visible from here on.
    std::atomic_thread_fence(std::memory_order_acquire);
    last->done.store(false, std::memory_order_relaxed);
    last->result = {};
    return last;
  }
  last = std::make_shared<CallWaiter>();
  return last;
}

std::uint64_t EndpointCore::open_peer(std::string label, std::string where,
                                      std::optional<Bytes> address) {
  std::uint64_t id = ++next_peer_;
  auto create = [this, id, label = std::move(label), where = std::move(where),
                 address = std::move(address)]() mutable {
    Peer peer;
    peer.label = std::move(label);
    peer.where = std::move(where);
    peer.address = std::move(address);
    peers_.emplace(id, std::move(peer));
  };
  if (loop_->on_owner_thread()) {
    create();
  } else if (!loop_->post(std::move(create))) {
    throw ChannelError(Errc::closed, "courier endpoint " + name_ + " is closed");
  }
  return id;
}

void EndpointCore::release_peer(std::uint64_t peer_id) {
  auto release = [this, peer_id] {
    auto it = peers_.find(peer_id);
    if (it == peers_.end()) return;
    it->second.released = true;
    maybe_forget_peer(peer_id);
  };
  if (loop_->on_owner_thread()) {
    release();
  } else {
    loop_->post(release);
  }
}

void EndpointCore::set_peer_address(std::uint64_t peer_id, std::optional<Bytes> address) {
  loop_->post([this, peer_id, address = std::move(address)] {
    auto it = peers_.find(peer_id);
    if (it == peers_.end() || it->second.address == address) return;
    Peer& peer = it->second;
    peer.address = address;
    if (peer.link) {
      fail_in_flight(peer, address ? Errc::peer_restarted : Errc::peer_lost,
                     address ? peer.label + " restarted (it published a new address)"
                             : peer.label + " went away (its task ended or withdrew its address)");
      linger(std::move(peer.link));
    }
    if (address) flush_waiting(peer_id);
  });
}

bool EndpointCore::ready_to_send(const Peer& peer) const {
  if (!peer.address) return false;
  if (!peer.failed_address || *peer.failed_address != *peer.address) return true;
  return ProgressLoop::Clock::now() - peer.failed_at >= kReconnectDelay;
}

void EndpointCore::flush_waiting(std::uint64_t peer_id) {
  auto pit = peers_.find(peer_id);
  if (pit == peers_.end()) return;
  Peer& peer = pit->second;
  if (!ready_to_send(peer)) {
    if (peer.address && !peer.retry_scheduled) {
      // The address failed a moment ago: try it again after the delay,
      // unless a new one is published first.
      peer.retry_scheduled = true;
      loop_->schedule(peer.failed_at + kReconnectDelay, [this, peer_id] {
        if (auto it = peers_.find(peer_id); it != peers_.end()) {
          it->second.retry_scheduled = false;
          flush_waiting(peer_id);
        }
      });
    }
    return;
  }
  auto waiting = std::move(peer.waiting);
  peer.waiting.clear();
  for (auto call_id : waiting) {
    auto call = calls_.find(call_id);
    if (call == calls_.end()) continue;
    if (!peer.link && !connect_or_fail(peer_id, peer, call_id)) continue;
    if (!can_transmit(peer_id, peer)) {
      peer.waiting.push_back(call_id);
      continue;
    }
    transmit(call_id, call->second, peer);
  }
}

bool EndpointCore::connect_or_fail(std::uint64_t peer_id, Peer& peer, std::uint64_t call_id) {
  try {
    connect_peer(peer_id, peer);
    return true;
  } catch (const ChannelError& e) {
    peer.failed_address = peer.address;
    peer.failed_at = ProgressLoop::Clock::now();
    if (e.code() == Errc::protocol) {
      // Garbage where an address should be (ucx::AddressCheck): refused
      // before UCX saw it. Later calls wait for a new address.
      counters_.refused_addresses++;
      fail(call_id, Errc::protocol,
           "refusing the address of " + peer.label + " from " + peer.where + ": " + e.what() +
               "; it was not written by a courier endpoint of this slipway and UCX (check what "
               "else writes there)");
      return false;
    }
    // The worker at that address cannot be reached (e.g. it exited and its
    // shared memory is gone): the callee is lost, not the transport.
    fail(call_id, Errc::peer_lost,
         "cannot connect to " + peer.label + " at its published address (" + e.what() +
             "); it may have exited or restarted");
    return false;
  }
}

void EndpointCore::check_call(const std::string& method, const Bytes& request) const {
  if (method.empty() || method.size() > wire::kMaxMethodBytes) {
    throw ChannelError(Errc::invalid_argument, "method name '" + method + "' must be 1 to " +
                                                   std::to_string(wire::kMaxMethodBytes) +
                                                   " bytes long");
  }
  if (request.size() > options_.max_message_bytes) {
    throw ChannelError(Errc::message_too_large,
                       "a request of " + std::to_string(request.size()) +
                           " bytes to method '" + method + "' exceeds max_message_bytes = " +
                           std::to_string(options_.max_message_bytes) + " of courier endpoint " +
                           name_);
  }
}

void EndpointCore::start_call(std::uint64_t peer_id, std::string method, Bytes request,
                              Timeout timeout, bool oneway, CallDone done) {
  check_call(method, request);
  submit_call(peer_id, std::move(method), std::move(request), timeout_or_default(timeout), oneway,
              std::move(done), ProgressLoop::Clock::now(), nullptr);
}

void EndpointCore::submit_call(std::uint64_t peer_id, std::string method, Bytes request,
                               std::chrono::milliseconds wait, bool oneway, CallDone done,
                               ProgressLoop::Clock::time_point started,
                               std::shared_ptr<CallWaiter> waiter) {
  counters_.calls_started++;
  if (loop_->on_owner_thread()) {
    begin_call(peer_id, std::move(method), std::move(request), wait, oneway, std::move(done),
               started, std::move(waiter));
    return;
  }
  // Small closures would fit std::function's copy requirement only by
  // copying the request; a shared holder keeps the request moved.
  auto begin = [this, peer_id, method = std::move(method), request = std::move(request), wait,
                oneway, done = std::move(done), started, waiter = std::move(waiter)]() mutable {
    begin_call(peer_id, std::move(method), std::move(request), wait, oneway, std::move(done),
               started, std::move(waiter));
  };
  auto holder = std::make_shared<decltype(begin)>(std::move(begin));
  if (!loop_->post([holder] { (*holder)(); })) {
    throw ChannelError(Errc::closed, "courier endpoint " + name_ + " is closed");
  }
}

void EndpointCore::begin_call(std::uint64_t peer_id, std::string method, Bytes request,
                              std::chrono::milliseconds wait, bool oneway, CallDone done,
                              ProgressLoop::Clock::time_point started,
                              std::shared_ptr<CallWaiter> waiter) {
  auto pit = peers_.find(peer_id);
  if (stopping_ || pit == peers_.end()) {
    deliver(done, waiter.get(),
            {{}, std::make_exception_ptr(ChannelError(
                     Errc::closed, "courier endpoint " + name_ + " or its handle is closed"))});
    return;
  }
  std::uint64_t id = ++next_call_;
  auto node = spare_calls_.take();
  Call* slot = nullptr;
  if (node.empty()) {
    slot = &calls_[id];
  } else {
    node.key() = id;
    slot = &calls_.insert(std::move(node)).position->second;
  }
  Call& call = *slot;
  call.peer = peer_id;
  call.method = std::move(method);
  call.request = std::move(request);
  call.oneway = oneway;
  call.timeout = wait;
  call.done = std::move(done);
  call.waiter = std::move(waiter);
  call.timer = loop_->schedule(started + wait, [this, id] { expire(id); });
  Peer& peer = pit->second;
  if (!peer.link && !ready_to_send(peer)) {
    peer.waiting.push_back(id);
    flush_waiting(peer_id);  // schedules the retry of a failed address
    return;
  }
  if (!peer.link && !connect_or_fail(peer_id, peer, id)) return;
  if (!can_transmit(peer_id, peer)) {
    peer.waiting.push_back(id);  // until the callee's challenge is answered
    return;
  }
  transmit(id, call, peer);
}

Bytes EndpointCore::call(std::uint64_t peer_id, std::string method, Bytes request,
                         Timeout timeout, PollWindow& window) {
  check_call(method, request);
  const auto wait = timeout_or_default(timeout);
  // Where the reply lands; the completion runs on whichever thread owns
  // the worker then (this one while it drives).
  auto shared_waiter = CallWaiter::reusable();
  CallWaiter& waiter = *shared_waiter;
  const auto start = ProgressLoop::Clock::now();
  std::optional<ProgressLoop::Clock::time_point> ended;
  bool finished_here = false;
  std::chrono::nanoseconds polled{0};
  bool preempted = false;
  if (options_.caller_progress && loop_->try_acquire()) {
    // This thread owns the worker: send from here and poll for the reply
    // for a short while, then hand the worker back armed.
    // Handed back unarmed (the loop naps) when this thread polled for its
    // reply, got it, and no other call of this endpoint waits: it will
    // likely call again soon, and an armed worker makes every reply cost
    // the peer a wake-up signal.
    struct Release {
      ProgressLoop& loop;
      std::chrono::nanoseconds nap{0};
      ProgressLoop::Clock::time_point now{};
      ~Release() { loop.release(nap, now); }
    } release{*loop_};
    submit_call(peer_id, std::move(method), std::move(request), wait, false, nullptr, start,
                std::move(shared_waiter));
    polled = options_.busy_poll.count() > 0 ? std::chrono::nanoseconds(options_.busy_poll)
                                            : window.next(options_.poll_limit);
    // The rounds read the clock about once a microsecond (RoundClock):
    // the call's timer and the window's end are judged that late at most.
    RoundClock clock(start);
    auto now = start;
    auto round_start = start;
    for (;;) {
      const bool active = loop_->poll_once(now);
      if ((finished_here = waiter.done.load(std::memory_order_acquire))) break;
      now = clock.now();
      if (!active && now - round_start > kPreemptedRound) preempted = true;
      round_start = now;
      if (now - start >= polled || loop_->stop_requested()) break;
      pause_polling(now - start);
    }
    if (finished_here) {
      ended = ProgressLoop::Clock::now();
      if (calls_.empty()) {
        release.nap = polled;
        release.now = *ended;
      }
    }
  } else {
    submit_call(peer_id, std::move(method), std::move(request), wait, false, nullptr, start,
                std::move(shared_waiter));
  }
  if (!finished_here) {
    // Completed (or to complete) by another thread: take its lock.
    std::unique_lock lock(waiter.mutex);
    waiter.ready.wait(lock, [&] { return waiter.done.load(); });
  }
  window.observe((ended ? *ended : ProgressLoop::Clock::now()) - start, polled,
                 options_.poll_limit, preempted);
  if (waiter.result.error) std::rethrow_exception(waiter.result.error);
  return std::move(waiter.result.value);
}

void EndpointCore::connect_peer(std::uint64_t peer_id, Peer& peer) {
  std::uint64_t generation = ++next_generation_;
  peer.link = connect_link(*peer.address, [this, peer_id, generation](ucs_status_t s) {
    Event event;
    event.type = Event::Type::peer_failed;
    event.id = peer_id;
    event.generation = generation;
    event.status = s;
    push(std::move(event));
  });
  peer.generation = generation;
  peer.replies = 0;
  say_hello(peer_id, peer);
}

void EndpointCore::say_hello(std::uint64_t peer_id, Peer& peer) {
  // Calls on this connection wait for the callee's challenge (on_challenge):
  // a callee reads nothing from a caller that has not proven the secret.
  peer.hello_due = false;
  peer.admitted = false;
  peer.nonce = CourierAuth::nonce();
  // A hello or challenge lost while the connection stays up (the callee's
  // connection back failed in the handshake) would leave calls waiting for
  // ever: unanswered when the callee forgets unproven hellos
  // (kPendingLimit), the hello is said again, for the calls waiting then or
  // for the next call. Not sooner: a slow challenge must not be replaced
  // by a new handshake at every short call's timeout.
  loop_->schedule(ProgressLoop::Clock::now() + kPendingLimit,
                  [this, peer_id, generation = peer.generation, nonce = peer.nonce] {
                    auto it = peers_.find(peer_id);
                    if (it == peers_.end()) return;
                    Peer& late = it->second;
                    if (!late.link || late.admitted || late.generation != generation ||
                        late.nonce != nonce) {
                      return;
                    }
                    if (late.waiting.empty()) {
                      late.hello_due = true;
                    } else {
                      say_hello(peer_id, late);
                    }
                  });
  send_message(*peer.link, wire::kRequestAm,
               wire::Header{wire::Kind::hello, 0, id_, peer.generation, {}},
               wire::encode_hello(name_, peer.nonce, address_), 0, false,
               UCP_AM_SEND_FLAG_EAGER);
}

bool EndpointCore::can_transmit(std::uint64_t peer_id, Peer& peer) {
  if (peer.link && peer.hello_due) say_hello(peer_id, peer);
  return peer.link && peer.admitted;
}

void EndpointCore::on_challenge(const wire::Header& header, ByteView data) {
  for (auto& [peer_id, peer] : peers_) {
    if (!peer.link || peer.generation != header.call_id || peer.admitted) continue;
    auto challenge = wire::decode_challenge(data);
    if (!challenge ||
        !CourierAuth::same(challenge->mac, auth_.callee_mac(header.sender, id_, header.call_id,
                                                             peer.nonce, challenge->nonce))) {
      // Not from the callee we said hello to (or not from a task of this
      // program): ignored, so that an outsider cannot fail our calls.
      counters_.refused_proofs++;
      warn_once(warned_bad_challenge_,
                "ignoring a challenge that does not prove the program's secret (sent as " +
                    peer.label + "'s); calls to it wait for the real one. Further ones are "
                    "counted, not logged");
      return;
    }
    peer.callee = header.sender;
    // Eager, so that it reaches the callee before the calls that follow it
    // on this connection.
    send_message(*peer.link, wire::kRequestAm,
                 wire::Header{wire::Kind::proof, 0, id_, peer.generation, {}},
                 wire::encode_proof(auth_.caller_mac(id_, header.sender, header.call_id,
                                                     challenge->nonce, peer.nonce,
                                                     address_)),
                 0, false, UCP_AM_SEND_FLAG_EAGER);
    peer.admitted = true;
    flush_waiting(peer_id);
    return;
  }
}

void EndpointCore::transmit(std::uint64_t call_id, Call& call, Peer& peer) {
  const std::size_t cap = options_.max_shared_memory_bytes_in_flight;
  if (cap > 0 && peer.link->shared_memory() &&
      (!peer.held.empty() ||
       (peer.bytes_in_flight > 0 && peer.bytes_in_flight + call.request.size() > cap))) {
    // In flight as far as failures go: it fails with the link it waits for.
    call.held = true;
    peer.held.push_back(call_id);
    insert_id(peer.in_flight, spare_in_flight_, call_id);
    return;
  }
  send_call(call_id, call, peer);
}

void EndpointCore::release_held(std::uint64_t peer_id) {
  auto pit = peers_.find(peer_id);
  if (pit == peers_.end()) return;
  Peer& peer = pit->second;
  const std::size_t cap = options_.max_shared_memory_bytes_in_flight;
  while (!peer.held.empty() && peer.link && !peer.link->failed()) {
    auto it = calls_.find(peer.held.front());
    if (it == calls_.end()) {
      peer.held.pop_front();
      continue;
    }
    if (peer.bytes_in_flight > 0 && peer.bytes_in_flight + it->second.request.size() > cap) break;
    peer.held.pop_front();
    send_call(it->first, it->second, peer);
  }
}

void EndpointCore::send_call(std::uint64_t call_id, Call& call, Peer& peer) {
  call.transmitted = true;
  call.held = false;
  if (peer.link->shared_memory()) {
    call.bytes = call.request.size();
    peer.bytes_in_flight += call.bytes;
  }
  insert_id(peer.in_flight, spare_in_flight_, call_id);
  wire::Header header{call.oneway ? wire::Kind::oneway : wire::Kind::call, 0, id_, call_id,
                      call.method};
  send_message(*peer.link, wire::kRequestAm, header, std::move(call.request), call_id,
               call.oneway);
}

void EndpointCore::on_reply(const wire::Header& header, Bytes data) {
  if (header.kind == wire::Kind::challenge) {
    on_challenge(header, data);
    return;
  }
  if (header.kind == wire::Kind::leaving) {
    on_callee_leaving(header);
    return;
  }
  auto it = calls_.find(header.call_id);
  if (it == calls_.end() || it->second.oneway || !it->second.transmitted) return;
  auto pit = peers_.find(it->second.peer);
  // Only the callee that proved the secret on this call's connection
  // answers it: a reply from anyone else is dropped.
  if (pit == peers_.end() || pit->second.callee != header.sender) return;
  pit->second.replies++;
  pit->second.last_reply = loop_->round_time();  // to a round: for messages in ms
  if (header.kind == wire::Kind::reply_ok) {
    finish(header.call_id, {std::move(data), nullptr});
    return;
  }
  const Call& call = it->second;
  const auto status = static_cast<wire::RemoteStatus>(header.status);
  std::string remote = to_string(data);
  bool failed = status == wire::RemoteStatus::handler_failed;
  fail(header.call_id, errc_of(status),
       label_of(call.peer) + ": call '" + call.method + "' " + (failed ? "failed: " : "refused: ") +
           remote,
       remote);
}

void EndpointCore::on_reply_refused(std::uint64_t call_id, wire::RemoteStatus status,
                                    std::string message) {
  auto it = calls_.find(call_id);
  if (it == calls_.end()) return;
  Errc code = status == wire::RemoteStatus::message_too_large ? Errc::message_too_large
                                                              : Errc::overloaded;
  fail(call_id, code,
       "the reply to call '" + it->second.method + "' to " + label_of(it->second.peer) +
           " was refused: " + message);
}

void EndpointCore::on_send_done(std::uint64_t call_id, ucs_status_t status) {
  auto it = calls_.find(call_id);
  if (it == calls_.end()) return;
  if (status == UCS_OK) {
    finish(call_id, {});
    return;
  }
  fail(call_id, ucx::errc_for(status),
       ucx::describe(status, "sending call '" + it->second.method + "' to " +
                                 label_of(it->second.peer) + " failed"));
}

void EndpointCore::on_peer_failed(std::uint64_t peer_id, std::uint64_t generation,
                                  ucs_status_t status) {
  auto it = peers_.find(peer_id);
  if (it == peers_.end() || !it->second.link || it->second.generation != generation) return;
  Peer& peer = it->second;
  fail_in_flight(peer, Errc::peer_lost,
                 "the connection to " + peer.label + " failed (" + ucs_status_string(status) +
                     "); it may have exited or restarted");
  peer.link.reset();
  peer.failed_address = peer.address;
  peer.failed_at = ProgressLoop::Clock::now();
  maybe_forget_peer(peer_id);
}

void EndpointCore::on_callee_leaving(const wire::Header& header) {
  for (auto& [peer_id, peer] : peers_) {
    if (!peer.link || peer.generation != header.call_id || peer.callee != header.sender) continue;
    fail_in_flight(peer, Errc::peer_lost, peer.label + " closed its endpoint");
    linger(std::move(peer.link));
    peer.failed_address = peer.address;
    peer.failed_at = ProgressLoop::Clock::now();
    maybe_forget_peer(peer_id);
    return;
  }
}

void EndpointCore::fail_in_flight(Peer& peer, Errc code, const std::string& why) {
  std::vector<std::uint64_t> ids(peer.in_flight.begin(), peer.in_flight.end());
  for (auto id : ids) {
    auto it = calls_.find(id);
    if (it == calls_.end()) continue;
    fail(id, code,
         why + " while call '" + it->second.method +
             "' was in flight; it may or may not have run: retry it if that is safe");
  }
}

void EndpointCore::expire(std::uint64_t call_id) {
  auto it = calls_.find(call_id);
  if (it == calls_.end()) return;
  const Call& call = it->second;
  auto pit = peers_.find(call.peer);
  if (pit == peers_.end()) return;
  Peer& peer = pit->second;
  std::string ms = std::to_string(call.timeout.count()) + " ms";
  if (call.transmitted) {
    if (peer.link) peer.hello_due = true;
    std::string history = "no call on this connection has been answered yet";
    if (peer.replies > 0) {
      const auto ago = std::chrono::duration_cast<std::chrono::milliseconds>(
          ProgressLoop::Clock::now() - peer.last_reply);
      history = std::to_string(peer.replies) + " call(s) on this connection were answered, the "
                "last " + std::to_string(ago.count()) + " ms ago";
    }
    fail(call_id, Errc::timeout,
         "call '" + call.method + "' to " + peer.label + " timed out after " + ms +
             " without a reply (" + history + "); check that " + peer.label +
             " is running and not stuck, or give the call a longer timeout");
  } else if (call.held) {
    fail(call_id, Errc::timeout,
         "call '" + call.method + "' to " + peer.label + " timed out after " + ms +
             " waiting behind this handle's " + std::to_string(peer.bytes_in_flight) +
             " bytes of calls in flight over shared memory (max_shared_memory_bytes_in_flight); "
             "check that " + peer.label + " is running and not stuck, or give the call a longer "
             "timeout");
  } else if (peer.link && !peer.admitted) {
    fail(call_id, Errc::timeout,
         "call '" + call.method + "' to " + peer.label + " timed out after " + ms +
             ": it never answered the hello with a challenge that proves the program's "
             "secret (the hello is said again every " +
             std::to_string(kPendingLimit.count() / 1000) +
             " s while calls wait; a courier endpoint of another program, or of another "
             "SLIPWAY_TOKEN, at its published address?); check that it is running as a task "
             "of this program");
  } else if (peer.address && peer.failed_address == peer.address) {
    fail(call_id, Errc::timeout,
         "call '" + call.method + "' to " + peer.label + " timed out after " + ms +
             ": the connection to its published address failed and no new address was "
             "published (" + peer.where + "); check that it is running");
  } else {
    fail(call_id, Errc::timeout,
         "call '" + call.method + "' to " + peer.label + " timed out after " + ms +
             ": no address of " + peer.label + " was published (" + peer.where +
             "); check that it is running and has published its endpoint");
  }
}

std::string EndpointCore::label_of(std::uint64_t peer_id) const {
  auto it = peers_.find(peer_id);
  return it == peers_.end() ? std::string("a released handle") : it->second.label;
}

void EndpointCore::finish(std::uint64_t call_id, CallResult result) {
  auto it = calls_.find(call_id);
  if (it == calls_.end()) return;
  auto node = calls_.extract(it);
  Call& call = node.mapped();
  loop_->cancel(call.timer);
  bool room = false;
  const std::uint64_t peer_id = call.peer;
  if (auto pit = peers_.find(peer_id); pit != peers_.end()) {
    Peer& peer = pit->second;
    erase_id(peer.in_flight, spare_in_flight_, call_id);
    auto& waiting = peer.waiting;
    waiting.erase(std::remove(waiting.begin(), waiting.end(), call_id), waiting.end());
    if (call.held) peer.held.erase(std::remove(peer.held.begin(), peer.held.end(), call_id), peer.held.end());
    peer.bytes_in_flight -= std::min(peer.bytes_in_flight, call.bytes);
    room = call.bytes > 0 && !peer.held.empty();
  }
  try {
    deliver(call.done, call.waiter.get(), std::move(result));
  } catch (...) {
    // Completions only fulfil promises; nothing to do if one throws.
  }
  call = Call{};  // drops the completion and the waiter now
  spare_calls_.keep(std::move(node));
  if (room) release_held(peer_id);
  maybe_forget_peer(peer_id);
}

void EndpointCore::fail(std::uint64_t call_id, Errc code, const std::string& message,
                        std::string remote_message) {
  finish(call_id, {{}, std::make_exception_ptr(ChannelError(code, message,
                                                            std::move(remote_message)))});
}

void EndpointCore::maybe_forget_peer(std::uint64_t peer_id) {
  auto it = peers_.find(peer_id);
  if (it == peers_.end()) return;
  Peer& peer = it->second;
  if (!peer.released || !peer.in_flight.empty() || !peer.waiting.empty()) return;
  linger(std::move(peer.link), wire::kRequestAm,
         {wire::Header{wire::Kind::goodbye, 0, id_, peer.generation, {}}});
  peers_.erase(it);
}

}  // namespace slipway::channels::detail
