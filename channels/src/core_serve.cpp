// The callee side of EndpointCore: callers (a hello tells where replies go
// and is answered by a challenge; a caller is admitted once its proof
// shows it knows the program's secret, and nothing is received from a
// sender not admitted), dispatching requests to methods within the bounds,
// and replies.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <utility>

#include "endpoint_core.hpp"
#include "slipway/rendezvous/printable.hpp"
#include "slipway/rendezvous/sha256.hpp"
#include "slipway/rendezvous/token.hpp"

namespace slipway::channels {

// Shared by a Responder and the dispatch that created it, so an exception
// thrown by a handler can still answer the call with its message.
struct Responder::State {
  std::weak_ptr<detail::EndpointCore> core;
  std::uint64_t caller = 0;
  std::uint64_t call = 0;
  std::string method;
  bool oneway = false;
  std::atomic<bool> answered{false};
  Bytes* request = nullptr;  // while the handler runs: what take_request() hands over

  bool answer(wire::Kind kind, wire::RemoteStatus status, detail::Payload data) {
    if (answered.exchange(true)) return false;
    if (auto owner = core.lock()) owner->respond(caller, call, oneway, kind, status, std::move(data));
    return true;
  }
};

Responder::Responder(std::shared_ptr<State> state) : state_(std::move(state)) {}
Responder::Responder(Responder&&) noexcept = default;
Responder& Responder::operator=(Responder&& other) noexcept {
  if (this != &other) {
    Responder dropped(std::move(*this));
    state_ = std::move(other.state_);
  }
  return *this;
}

Responder::~Responder() {
  if (!state_ || state_->answered.load()) return;
  // While an exception unwinds, the dispatch that ran the handler answers
  // with the exception's message.
  if (std::uncaught_exceptions() > 0) return;
  try {
    state_->answer(wire::Kind::reply_error, wire::RemoteStatus::handler_failed,
                   to_bytes("the handler of '" + state_->method + "' returned without replying"));
  } catch (...) {
  }
}

void Responder::reply(Bytes result) {
  if (!state_ || !state_->answer(wire::Kind::reply_ok, wire::RemoteStatus::handler_failed,
                                 std::move(result))) {
    throw ChannelError(Errc::invalid_argument, "this call was already answered");
  }
}

void Responder::reply_gathered(Gathered result) {
  if (!state_ || !state_->answer(wire::Kind::reply_ok, wire::RemoteStatus::handler_failed,
                                 std::move(result))) {
    throw ChannelError(Errc::invalid_argument, "this call was already answered");
  }
}

void Responder::fail(std::string message) {
  if (!state_ || !state_->answer(wire::Kind::reply_error, wire::RemoteStatus::handler_failed,
                                 to_bytes(message))) {
    throw ChannelError(Errc::invalid_argument, "this call was already answered");
  }
}

Bytes Responder::take_request() {
  if (!state_ || !state_->request) return {};
  return std::exchange(*state_->request, Bytes());
}

const std::string& Responder::method() const noexcept { return state_->method; }
bool Responder::oneway() const noexcept { return state_->oneway; }

}  // namespace slipway::channels

namespace slipway::channels::detail {
namespace {

constexpr std::size_t kMaxConnectionsPerCaller = 1024;
constexpr std::size_t kMaxErrorMessageBytes = 16 * 1024;

// A refused caller's address, for the one log line: the worker address it
// gave, as a digest (UCX does not tell the socket a message came from).
std::string describe_address(ByteView address) {
  auto digest = rendezvous::sha256(
      std::span(reinterpret_cast<const std::uint8_t*>(address.data()), address.size()));
  return "UCX worker address of " + std::to_string(address.size()) + " bytes, sha256 " +
         rendezvous::to_hex(std::span(digest.data(), 8));
}

// Owns one dispatched request until its handler has run.
struct Job {
  std::shared_ptr<AsyncHandler> handler;
  Bytes request;
  std::shared_ptr<Responder::State> state;
  std::optional<Responder> responder;

  void run() noexcept {
    std::string error;
    state->request = &request;
    struct Taken {  // take_request() only during the call
      Responder::State& state;
      ~Taken() { state.request = nullptr; }
    } taken{*state};
    try {
      (*handler)(ByteView(request), std::move(*responder));
      return;
    } catch (const std::exception& e) {
      error = e.what();
    } catch (...) {
      error = "unknown exception";
    }
    try {
      responder.reset();
      state->answer(wire::Kind::reply_error, wire::RemoteStatus::handler_failed,
                    to_bytes(error));
    } catch (...) {
    }
  }
};

}  // namespace

void EndpointCore::proof_dequeued(std::uint64_t sender) {
  auto queued = proofs_queued_.find(sender);
  if (queued != proofs_queued_.end() && --queued->second == 0) proofs_queued_.erase(queued);
}

void EndpointCore::on_request(const wire::Header& header, Bytes data) {
  if (header.kind == wire::Kind::proof) proof_dequeued(header.sender);
  if (stopping_) return;  // shutting down: no new handlers, no new callers
  switch (header.kind) {
    case wire::Kind::hello:
      on_hello(header, data);
      break;
    case wire::Kind::proof:
      admit(header.sender, header.call_id);
      break;
    case wire::Kind::goodbye:
      on_goodbye(header);
      break;
    case wire::Kind::call:
    case wire::Kind::oneway:
      dispatch(header, std::move(data));
      break;
    default:
      break;
  }
}

void EndpointCore::warn_once(bool& warned, const std::string& message) {
  if (warned) return;
  warned = true;
  std::fprintf(stderr, "courier endpoint %s: %s\n", rendezvous::printable(name_).c_str(),
               message.c_str());
}

Caller* EndpointCore::new_caller(std::uint64_t sender) {
  if (callers_.size() >= options_.max_callers) {
    warn_once(warned_callers_full_,
              "refusing a new caller: " + std::to_string(callers_.size()) +
                  " callers are connected (max_callers); its calls will time out");
    return nullptr;
  }
  Caller* caller = &callers_[sender];
  counters_.callers = callers_.size();
  return caller;
}

void EndpointCore::forget_caller(std::uint64_t sender) {
  callers_.erase(sender);
  counters_.callers = callers_.size();
}

bool EndpointCore::announced(std::uint64_t sender) const {
  return callers_.count(sender) > 0 || proofs_queued_.count(sender) > 0;
}

void EndpointCore::on_hello(const wire::Header& header, ByteView data) {
  const std::uint64_t sender = header.sender;
  auto decoded = wire::decode_hello(data);
  if (!decoded.hello) {
    warn_once(warned_bad_hello_, "dropped a malformed hello (" + decoded.error +
                                     "); further ones are dropped silently");
    return;
  }
  const wire::Hello& hello = *decoded.hello;
  make_room_for_pending();
  PendingCaller pending;
  pending.label = rendezvous::printable(hello.label);
  pending.address = to_bytes(hello.address);
  pending.connection = header.call_id;
  pending.caller_nonce = hello.nonce;
  pending.callee_nonce = CourierAuth::nonce();
  pending.since = ProgressLoop::Clock::now();
  const PendingKey key{sender, header.call_id};
  auto it = callers_.find(sender);
  if (it != callers_.end() && it->second.link && !it->second.link->failed() &&
      ByteView(it->second.address).size() == hello.address.size() &&
      std::equal(hello.address.begin(), hello.address.end(), it->second.address.begin())) {
    // A caller admitted before, at the same address (a new connection, or
    // a hello again after a timeout): challenged on its connection back.
    pending.generation = it->second.generation;
    send_challenge(*it->second.link, sender, pending);
    replace_pending(key, std::move(pending));
    return;
  }
  // A new caller, or one at a new address: connect to it first (its
  // address is checked there) and challenge it there. What it had before
  // stays until it proves the secret.
  std::uint64_t generation = ++next_generation_;
  try {
    pending.link = connect_link(hello.address, [this, sender, generation](ucs_status_t) {
      Event event;
      event.type = Event::Type::caller_failed;
      event.id = sender;
      event.generation = generation;
      push(std::move(event));
    });
  } catch (const ChannelError& e) {
    if (e.code() == Errc::protocol) counters_.refused_addresses++;
    std::fprintf(stderr, "courier endpoint %s: refusing caller '%s': cannot reply to it: %s\n",
                 rendezvous::printable(name_).c_str(), pending.label.c_str(), e.what());
    return;
  }
  pending.generation = generation;
  send_challenge(*pending.link, sender, pending);
  replace_pending(key, std::move(pending));
}

void EndpointCore::send_challenge(Link& link, std::uint64_t sender,
                                  const PendingCaller& pending) {
  wire::Challenge challenge;
  challenge.nonce = pending.callee_nonce;
  challenge.mac = auth_.callee_mac(id_, sender, pending.connection, pending.caller_nonce,
                                   pending.callee_nonce);
  send_message(link, wire::kReplyAm,
               wire::Header{wire::Kind::challenge, 0, id_, pending.connection, {}},
               wire::encode_challenge(challenge), 0, false, UCP_AM_SEND_FLAG_EAGER);
}

void EndpointCore::replace_pending(const PendingKey& key, PendingCaller pending) {
  auto [it, inserted] = pending_.try_emplace(key);
  if (!inserted) linger(std::move(it->second.link));
  it->second = std::move(pending);
}

void EndpointCore::make_room_for_pending() {
  const auto now = ProgressLoop::Clock::now();
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (now - it->second.since >= kPendingLimit) {
      linger(std::move(it->second.link));
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  if (pending_.size() < kMaxPendingCallers) return;
  auto oldest = std::min_element(pending_.begin(), pending_.end(), [](const auto& a, const auto& b) {
    return a.second.since < b.second.since;
  });
  linger(std::move(oldest->second.link));
  pending_.erase(oldest);
}

bool EndpointCore::proof_holds(const wire::Header& header, ByteView data) {
  auto it = pending_.find(PendingKey{header.sender, header.call_id});
  if (it == pending_.end()) {
    refuse_unproven("a proof that answers no challenge of ours", "");
    return false;
  }
  PendingCaller& pending = it->second;
  auto mac = wire::decode_proof(data);
  const bool fresh = ProgressLoop::Clock::now() - pending.since < kPendingLimit;
  if (!mac || !fresh ||
      !CourierAuth::same(*mac, auth_.caller_mac(header.sender, id_, header.call_id,
                                                 pending.callee_nonce, pending.caller_nonce,
                                                 pending.address))) {
    refuse_unproven("caller '" + pending.label + "' did not prove the program's secret",
                    describe_address(pending.address));
    pending.since = {};  // one try per challenge: dropped with the next hello
    return false;
  }
  proven_[it->first] = std::move(pending);
  pending_.erase(it);
  ++proofs_queued_[header.sender];
  return true;
}

void EndpointCore::refuse_unproven(const std::string& why, const std::string& where) {
  counters_.refused_proofs++;
  warn_once(warned_bad_proof_,
            "refusing a peer: " + why + (where.empty() ? "" : " (its address: " + where + ")") +
                "; it is not a task of this program (or runs with another SLIPWAY_TOKEN); "
                "nothing it sends is read. Further refusals are counted, not logged");
}

void EndpointCore::admit(std::uint64_t sender, std::uint64_t connection) {
  auto node = proven_.extract(PendingKey{sender, connection});
  if (node.empty()) return;
  PendingCaller& proven = node.mapped();
  auto it = callers_.find(sender);
  Caller* caller = it == callers_.end() ? nullptr : &it->second;
  if (!proven.link) {
    // Challenged on the admitted caller's own connection back.
    if (!caller || !caller->link || caller->generation != proven.generation) return;
  } else {
    if (!caller && !(caller = new_caller(sender))) {
      linger(std::move(proven.link));
      return;
    }
    linger(std::move(caller->link));  // an earlier connection of this caller
    caller->label = proven.label;
    caller->address = std::move(proven.address);
    caller->link = std::move(proven.link);
    caller->generation = proven.generation;
  }
  if (caller->connections.size() < kMaxConnectionsPerCaller) {
    caller->connections.insert(connection);
  }
}

void EndpointCore::on_goodbye(const wire::Header& header) {
  auto it = callers_.find(header.sender);
  if (it == callers_.end()) return;
  it->second.connections.erase(header.call_id);
  if (it->second.connections.empty()) {
    linger(std::move(it->second.link));  // replies may still be leaving
    forget_caller(header.sender);
  }
}

void EndpointCore::on_caller_failed(std::uint64_t caller, std::uint64_t generation) {
  auto it = callers_.find(caller);
  if (it != callers_.end() && it->second.generation == generation) forget_caller(caller);
}

void EndpointCore::on_rejected(const wire::Header& header, wire::RemoteStatus status,
                               std::string message) {
  if (stopping_ || header.kind != wire::Kind::call) return;
  send_reply(header.sender, header.call_id, wire::Kind::reply_error, status, to_bytes(message));
}

void EndpointCore::dispatch(const wire::Header& header, Bytes data) {
  if (!callers_.count(header.sender)) {
    // Its hello was refused after the request was received: nowhere to reply.
    counters_.calls_without_hello++;
    return;
  }
  const bool oneway = header.kind == wire::Kind::oneway;
  auto method = methods_.find(header.method);
  if (method == methods_.end()) {
    if (oneway) return;
    std::string known;
    std::size_t listed = 0;
    for (const auto& [name, handler] : methods_) {
      if (listed++ == 16) {
        known += ", ...";
        break;
      }
      known += (known.empty() ? "" : ", ") + name;
    }
    send_reply(header.sender, header.call_id, wire::Kind::reply_error,
               wire::RemoteStatus::no_such_method,
               to_bytes(name_ + " has no method '" + header.method + "' (it has: " +
                        (known.empty() ? "none" : known) + ")"));
    return;
  }
  if (queued_requests_ >= options_.max_queued_requests) {
    counters_.refused++;
    if (oneway) return;
    send_reply(header.sender, header.call_id, wire::Kind::reply_error,
               wire::RemoteStatus::overloaded,
               to_bytes(name_ + " has " + std::to_string(queued_requests_) +
                        " requests queued (max_queued_requests); retry later"));
    return;
  }
  ++queued_requests_;
  counters_.requests_received++;
  auto state = std::make_shared<Responder::State>();
  state->core = weak_from_this();
  state->caller = header.sender;
  state->call = header.call_id;
  state->method = header.method;
  state->oneway = oneway;
  if (!pool_) {
    // Runs here and now: no Job to allocate and share.
    Job job{method->second, std::move(data), state, std::nullopt};
    job.responder.emplace(Responder(std::move(state)));
    job.run();
    return;
  }
  auto job = std::make_shared<Job>();
  job->handler = method->second;
  job->request = std::move(data);
  job->state = state;
  job->responder.emplace(Responder(state));
  pool_->submit([job] { job->run(); });
}

void EndpointCore::respond(std::uint64_t caller, std::uint64_t call, bool oneway, wire::Kind kind,
                           wire::RemoteStatus status, Payload data) {
  auto task = [this, caller, call, oneway, kind, status, data = std::move(data)]() mutable {
    if (queued_requests_ > 0) --queued_requests_;
    if (oneway) return;
    send_reply(caller, call, kind, status, std::move(data));
  };
  if (loop_->on_owner_thread()) {
    task();
  } else {
    loop_->post(std::move(task));
  }
}

void EndpointCore::send_reply(std::uint64_t caller_id, std::uint64_t call, wire::Kind kind,
                              wire::RemoteStatus status, Payload data) {
  const std::size_t size = payload_size(data);
  if (kind == wire::Kind::reply_ok && size > options_.max_message_bytes) {
    kind = wire::Kind::reply_error;
    status = wire::RemoteStatus::message_too_large;
    data = to_bytes("its reply of " + std::to_string(size) +
                    " bytes exceeds max_message_bytes = " +
                    std::to_string(options_.max_message_bytes) + " of " + name_);
  }
  if (kind == wire::Kind::reply_error && payload_size(data) > kMaxErrorMessageBytes) {
    if (auto* bytes = std::get_if<Bytes>(&data)) bytes->resize(kMaxErrorMessageBytes);
  }
  auto it = callers_.find(caller_id);
  if (it == callers_.end()) return;  // the caller is gone
  wire::Header header{kind, kind == wire::Kind::reply_error ? static_cast<std::uint8_t>(status)
                                                            : std::uint8_t{0},
                      id_, call, {}};
  Caller& caller = it->second;
  if (!caller.link) return;
  send_message(*caller.link, wire::kReplyAm, header, std::move(data), 0, false);
}

}  // namespace slipway::channels::detail
