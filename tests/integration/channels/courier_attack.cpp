// slipway-courier-attack: a hostile courier peer for the channels
// integration tests. It reads the callee's courier address and speaks the
// courier wire raw, with no slipway endpoint: over UCX (its own context,
// worker and endpoint) to the address's UCX part when TLS names no tcp,
// else as TCP frames to its TCP part (the frames through the courier's own
// TcpTransport, whose framing it borrows):
//
//   courier_attack hello ADDRESS_HEX TLS GARBAGE_HEX
//       one hello whose caller address is GARBAGE_HEX
//   courier_attack calls ADDRESS_HEX TLS SENDERS CALLS BYTES
//       CALLS calls of BYTES bytes from SENDERS made-up sender ids, none of
//       which said hello
//   courier_attack outsider ADDRESS_HEX TLS
//       a real slipway endpoint of this process, which does not know the
//       callee's secret, calls "echo"; exits 0 when the call is refused
//       (it times out), 3 when it was answered
//   courier_attack handshake ADDRESS_HEX TLS SECRET_HEX fresh|stale CALLS
//       a raw caller says hello with its own address, waits for
//       the callee's challenge, answers it with a proof made with SECRET for
//       the challenge it got (fresh: what a task of the program sends) or
//       for an earlier challenge (stale: what an eavesdropper could replay),
//       then sends CALLS calls of "echo" and waits for their replies up to
//       5 s; exits 0 when all were answered, 5 when none was, 6 otherwise
//
// Exits 0 once everything was sent (over UCX: the callee acknowledged
// rendezvous payloads or dropped them), 1 when a send failed (e.g. the
// callee died), 2 on bad arguments.
#include <ucp/api/ucp.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <chrono>

#include "courier_address.hpp"
#include "courier_auth.hpp"
#include "tcp_transport.hpp"
#include "slipway/channels/endpoint.hpp"
#include "slipway/channels/wire.hpp"

using namespace slipway::channels;

namespace {

Bytes from_hex(const std::string& hex) {
  Bytes out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<std::byte>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

void die(const char* what, ucs_status_t status) {
  std::fprintf(stderr, "courier_attack: %s: %s\n", what, ucs_status_string(status));
  std::exit(1);
}

// A raw courier peer: sends messages, collects what comes back.
class Attacker {
 public:
  virtual ~Attacker() = default;
  // What the callee sent back on its connection to us (challenges, replies).
  std::vector<std::pair<wire::Header, Bytes>> received;
  // Sends one message to the callee; a token for wait().
  virtual void* send(const wire::Header& header, const Bytes& data, bool eager) = 0;
  // Waits until the message of `token` is sent; false when sending failed.
  virtual bool wait(void* token) = 0;
  // Our courier address (the callee connects back there).
  virtual Bytes own_address() const = 0;
  virtual void progress() = 0;
  virtual bool failed() const = 0;
  virtual bool close() = 0;

  // Progresses until `count` messages of `kind` came back, or `limit` passed.
  std::size_t await(wire::Kind kind, std::size_t count, std::chrono::milliseconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    auto counted = [&] {
      std::size_t n = 0;
      for (const auto& [header, data] : received) n += header.kind == kind;
      return n;
    };
    while (counted() < count && std::chrono::steady_clock::now() < deadline && !failed()) {
      progress();
    }
    return counted();
  }
};

class UcxAttacker final : public Attacker {
 public:
  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
  ucp_ep_h ep = nullptr;
  bool failed_ = false;

  UcxAttacker(const std::string& tls, const Bytes& callee) {
    ucp_config_t* config = nullptr;
    if (ucp_config_read(nullptr, nullptr, &config) != UCS_OK) die("config", UCS_ERR_NO_MEMORY);
    ucp_config_modify(config, "TLS", tls.c_str());
    // As courier endpoints do, so that they can check our address.
    ucp_config_modify(config, "UNIFIED_MODE", "n");
    if (tls.find("tcp") != std::string::npos) ucp_config_modify(config, "NET_DEVICES", "lo");
    if (tls.find("posix") != std::string::npos) {
      // As courier endpoints are: UCX 1.13's shared-memory transports assume
      // the peer's FIFO has their own size (docs/channels.md, Known limits).
      ucp_config_modify(config, "MM_ERROR_HANDLING", "y");
      ucp_config_modify(config, "MM_FIFO_SIZE", "256");
    }
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_AM;
    ucs_status_t status = ucp_init(&params, config, &context);
    ucp_config_release(config);
    if (status != UCS_OK) die("ucp_init", status);
    ucp_worker_params_t worker_params{};
    if ((status = ucp_worker_create(context, &worker_params, &worker)) != UCS_OK) {
      die("ucp_worker_create", status);
    }
    ucp_am_handler_param_t handler{};
    handler.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                         UCP_AM_HANDLER_PARAM_FIELD_ARG;
    handler.id = wire::kReplyAm;
    handler.arg = this;
    handler.cb = [](void* arg, const void* header, std::size_t header_length, void* data,
                    std::size_t length, const ucp_am_recv_param_t* param) -> ucs_status_t {
      auto decoded = wire::decode(ByteView(static_cast<const std::byte*>(header), header_length));
      if (!decoded.header || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) return UCS_OK;
      auto* self = static_cast<UcxAttacker*>(arg);
      const auto* bytes = static_cast<const std::byte*>(data);
      self->received.emplace_back(*decoded.header, Bytes(bytes, bytes + length));
      return UCS_OK;
    };
    if ((status = ucp_worker_set_am_recv_handler(worker, &handler)) != UCS_OK) {
      die("ucp_worker_set_am_recv_handler", status);
    }
    ucp_ep_params_t ep_params{};
    ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                           UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep_params.address = reinterpret_cast<const ucp_address_t*>(callee.data());
    ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep_params.err_handler.cb = [](void* arg, ucp_ep_h, ucs_status_t) {
      static_cast<UcxAttacker*>(arg)->failed_ = true;
    };
    ep_params.err_handler.arg = this;
    if ((status = ucp_ep_create(worker, &ep_params, &ep)) != UCS_OK) die("ucp_ep_create", status);
  }

  // Sends one active message to the callee; returns its request (or null
  // when it completed at once).
  // UCX 1.13 reads a pending send's header until it completes: each lives here.
  std::deque<wire::Encoded> headers;

  void* send(const wire::Header& header, const Bytes& data, bool eager) override {
    const wire::Encoded& encoded = headers.emplace_back(wire::encode(header));
    ucp_request_param_t param{};
    if (eager) {
      param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      param.flags = UCP_AM_SEND_FLAG_EAGER;
    }
    // The payload stays put too (the caller's buffer outlives the request).
    ucs_status_ptr_t request = ucp_am_send_nbx(ep, wire::kRequestAm, encoded.bytes.data(),
                                               encoded.size, data.empty() ? nullptr : data.data(),
                                               data.size(), &param);
    if (UCS_PTR_IS_ERR(request)) die("ucp_am_send_nbx", UCS_PTR_STATUS(request));
    return request;
  }

  // Progresses until `request` completed; false when it failed.
  bool wait(void* request) override {
    if (request == nullptr) return true;
    ucs_status_t status;
    while ((status = ucp_request_check_status(request)) == UCS_INPROGRESS) {
      ucp_worker_progress(worker);
      if (failed_) break;
    }
    ucp_request_free(request);
    return status == UCS_OK && !failed_;
  }

  void progress() override { ucp_worker_progress(worker); }
  bool failed() const override { return failed_; }

  Bytes own_address() const override {
    ucp_worker_attr_t attr{};
    attr.field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS;
    if (ucp_worker_query(worker, &attr) != UCS_OK) die("ucp_worker_query", UCS_ERR_NO_MESSAGE);
    const auto* bytes = reinterpret_cast<const std::byte*>(attr.address);
    detail::CourierAddress address;
    address.host_key = detail::local_host_key();
    address.ucx.assign(bytes, bytes + attr.address_length);
    ucp_worker_release_address(worker, attr.address);
    return detail::encode_courier_address(address);
  }

  bool close() override {
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = failed_ ? UCP_EP_CLOSE_FLAG_FORCE : 0;
    void* request = ucp_ep_close_nbx(ep, &param);
    bool ok = !failed_;
    if (UCS_PTR_IS_PTR(request)) {
      while (ucp_request_check_status(request) == UCS_INPROGRESS) ucp_worker_progress(worker);
      ucp_request_free(request);
    }
    ucp_worker_destroy(worker);
    ucp_cleanup(context);
    return ok;
  }
};

// Frames to the callee's TCP port through the courier's own TCP framing
// (no endpoint, no handshake of its own); what comes back on its listener
// is collected.
class TcpAttacker final : public Attacker {
 public:
  explicit TcpAttacker(const detail::CourierAddress& callee)
      : transport_(detail::TcpTransport::Settings{"127.0.0.1", std::size_t{1} << 30, 64},
                   [this](unsigned, ByteView header, std::byte* data, std::size_t length,
                          const detail::PayloadReader*, bool&) {
                     auto decoded = wire::decode(header);
                     if (decoded.header && data) {
                       received.emplace_back(*decoded.header, Bytes(data, data + length));
                     }
                     return UCS_OK;
                   }) {
    link_ = transport_.connect(callee.tcp_address, callee.tcp_port,
                               [this](ucs_status_t) { failed_ = true; });
  }

  void* send(const wire::Header& header, const Bytes& data, bool) override {
    auto done = std::make_unique<Done>(wire::encode(header), data);
    void* token = done.get();
    sending_.insert(token);
    done->sending = &sending_;
    done->failures = &send_failures_;
    link_->send(wire::kRequestAm, std::move(done), 0);
    return token;
  }

  bool wait(void* token) override {
    while (sending_.count(token) && !failed_) transport_.progress();
    return !sending_.count(token) && !failed_ && send_failures_ == 0;
  }

  void progress() override { transport_.progress(); }
  bool failed() const override { return failed_; }

  Bytes own_address() const override {
    detail::CourierAddress address;
    address.host_key = detail::local_host_key();
    address.tcp_address = transport_.address();
    address.tcp_port = transport_.port();
    return detail::encode_courier_address(address);
  }

  bool close() override {
    link_.reset();
    return !failed_ && send_failures_ == 0;
  }

 private:
  struct Done final : detail::OutgoingMessage {
    Done(wire::Encoded header, Bytes payload) : OutgoingMessage(header, std::move(payload)) {}
    std::set<void*>* sending = nullptr;
    int* failures = nullptr;
    void complete(ucs_status_t status, std::size_t) noexcept override {
      sending->erase(this);
      if (status != UCS_OK) ++*failures;
    }
  };

  std::set<void*> sending_;
  int send_failures_ = 0;
  bool failed_ = false;
  detail::TcpTransport transport_;
  std::unique_ptr<detail::Link> link_;
};

std::unique_ptr<Attacker> attacker_for(const std::string& tls, const Bytes& callee) {
  auto parsed = detail::parse_courier_address(callee);
  if (!parsed.address) {
    std::fprintf(stderr, "courier_attack: not a courier address: %s\n", parsed.error.c_str());
    std::exit(2);
  }
  if (tls.find("tcp") != std::string::npos) return std::make_unique<TcpAttacker>(*parsed.address);
  return std::make_unique<UcxAttacker>(tls, parsed.address->ucx);
}

std::uint64_t made_up_id(std::uint64_t n) { return 0x5eed000000000000ULL + n; }

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 4 && args[0] == "hello") {
    auto attacker = attacker_for(args[2], from_hex(args[1]));
    Bytes data = wire::encode_hello("attacker\nforged log line", wire::Nonce{}, from_hex(args[3]));
    bool ok = attacker->wait(
        attacker->send(wire::Header{wire::Kind::hello, 0, made_up_id(0), 1, {}}, data, true));
    return attacker->close() && ok ? 0 : 1;
  }
  if (args.size() == 6 && args[0] == "calls") {
    auto attacker = attacker_for(args[2], from_hex(args[1]));
    const unsigned long senders = std::stoul(args[3]);
    const unsigned long calls = std::stoul(args[4]);
    const Bytes payload(std::stoul(args[5]), std::byte{0x41});
    std::deque<void*> in_flight;
    bool ok = true;
    for (unsigned long i = 0; i < calls && ok; ++i) {
      wire::Header header{wire::Kind::call, 0, made_up_id(1 + i % senders), i + 1, "echo"};
      in_flight.push_back(attacker->send(header, payload, false));
      while (in_flight.size() > 64 && ok) {
        ok = attacker->wait(in_flight.front());
        in_flight.pop_front();
      }
    }
    for (void* request : in_flight) ok = attacker->wait(request) && ok;
    return attacker->close() && ok ? 0 : 1;
  }
  if (args.size() == 3 && args[0] == "outsider") {
    EndpointOptions options;
    options.tls = args[2];
    if (options.tls.find("tcp") != std::string::npos) options.net_devices = "lo";
    options.name = "outsider";
    Endpoint outsider(options);
    Handle handle = outsider.connect(from_hex(args[1]), "callee.0");
    try {
      handle.call("echo", to_bytes("from outside"), std::chrono::seconds(3));
      std::printf("answered\n");
      return 3;
    } catch (const ChannelError& e) {
      std::printf("refused: %s\n", e.what());
      return e.code() == Errc::timeout ? 0 : 4;
    }
  }
  if (args.size() == 6 && args[0] == "handshake") {
    const Bytes callee = from_hex(args[1]);
    auto attacker = attacker_for(args[2], callee);
    const Bytes secret = from_hex(args[3]);
    auto auth = detail::CourierAuth::from(to_string(secret));
    const bool stale = args[4] == "stale";
    const unsigned long calls = std::stoul(args[5]);
    const std::uint64_t me = made_up_id(7);
    const std::uint64_t connection = 1;
    const wire::Nonce nonce = detail::CourierAuth::nonce();
    const Bytes address = attacker->own_address();
    if (!attacker->wait(attacker->send(wire::Header{wire::Kind::hello, 0, me, connection, {}},
                                     wire::encode_hello("handshake", nonce, address), true))) {
      return 1;
    }
    if (attacker->await(wire::Kind::challenge, 1, std::chrono::seconds(10)) != 1) {
      std::printf("no challenge\n");
      return 1;
    }
    wire::Header challenge_header;
    std::optional<wire::Challenge> challenge;
    for (const auto& [header, data] : attacker->received) {
      if (header.kind != wire::Kind::challenge) continue;
      challenge_header = header;
      challenge = wire::decode_challenge(data);
    }
    if (!challenge) return 1;
    // A recorded proof answers another challenge: one with another nonce.
    wire::Nonce answered = challenge->nonce;
    if (stale) answered[0] ^= 1;
    const wire::Mac mac = auth.caller_mac(me, challenge_header.sender, connection, answered, nonce,
                                          address);
    bool ok = attacker->wait(attacker->send(wire::Header{wire::Kind::proof, 0, me, connection, {}},
                                          wire::encode_proof(mac), true));
    for (unsigned long i = 0; i < calls && ok; ++i) {
      ok = attacker->wait(attacker->send(wire::Header{wire::Kind::call, 0, me, 100 + i, "echo"},
                                       to_bytes("replayed"), true));
    }
    const std::size_t replies = attacker->await(wire::Kind::reply_ok, calls, std::chrono::seconds(5));
    std::printf("replies %zu\n", replies);
    if (!attacker->close() || !ok) return 1;
    return replies == calls ? 0 : replies == 0 ? 5 : 6;
  }
  std::fprintf(stderr,
               "usage: courier_attack hello ADDRESS_HEX TLS GARBAGE_HEX\n"
               "       courier_attack calls ADDRESS_HEX TLS SENDERS CALLS BYTES\n"
               "       courier_attack outsider ADDRESS_HEX TLS\n"
               "       courier_attack handshake ADDRESS_HEX TLS SECRET_HEX fresh|stale CALLS\n");
  return 2;
}
