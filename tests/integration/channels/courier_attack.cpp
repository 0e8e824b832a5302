// slipway-courier-attack: a hostile courier peer for the channels
// integration tests, speaking raw UCX (its own context, worker and
// endpoint; no slipway endpoint) to a callee's worker address:
//
//   courier_attack hello ADDRESS_HEX TLS GARBAGE_HEX
//       one hello whose caller address is GARBAGE_HEX
//   courier_attack calls ADDRESS_HEX TLS SENDERS CALLS BYTES
//       CALLS calls of BYTES bytes from SENDERS made-up sender ids, none of
//       which said hello
//
// Exits 0 once UCX has sent everything (the callee acknowledged rendezvous
// payloads or dropped them), 1 when a send failed (e.g. the callee died),
// 2 on bad arguments.
#include <ucp/api/ucp.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

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

struct Attacker {
  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
  ucp_ep_h ep = nullptr;
  bool failed = false;

  Attacker(const std::string& tls, const Bytes& callee) {
    ucp_config_t* config = nullptr;
    if (ucp_config_read(nullptr, nullptr, &config) != UCS_OK) die("config", UCS_ERR_NO_MEMORY);
    ucp_config_modify(config, "TLS", tls.c_str());
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
    ucp_ep_params_t ep_params{};
    ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                           UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep_params.address = reinterpret_cast<const ucp_address_t*>(callee.data());
    ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep_params.err_handler.cb = [](void* arg, ucp_ep_h, ucs_status_t) {
      static_cast<Attacker*>(arg)->failed = true;
    };
    ep_params.err_handler.arg = this;
    if ((status = ucp_ep_create(worker, &ep_params, &ep)) != UCS_OK) die("ucp_ep_create", status);
  }

  // Sends one active message to the callee; returns its request (or null
  // when it completed at once).
  void* send(const wire::Header& header, const Bytes& data, bool eager) {
    const wire::Encoded encoded = wire::encode(header);
    ucp_request_param_t param{};
    if (eager) {
      param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      param.flags = UCP_AM_SEND_FLAG_EAGER;
    }
    // UCX copies the header before returning; the payload stays put (the
    // caller's buffer outlives the request).
    ucs_status_ptr_t request = ucp_am_send_nbx(ep, wire::kRequestAm, encoded.bytes.data(),
                                               encoded.size, data.empty() ? nullptr : data.data(),
                                               data.size(), &param);
    if (UCS_PTR_IS_ERR(request)) die("ucp_am_send_nbx", UCS_PTR_STATUS(request));
    return request;
  }

  // Progresses until `request` completed; false when it failed.
  bool wait(void* request) {
    if (request == nullptr) return true;
    ucs_status_t status;
    while ((status = ucp_request_check_status(request)) == UCS_INPROGRESS) {
      ucp_worker_progress(worker);
      if (failed) break;
    }
    ucp_request_free(request);
    return status == UCS_OK && !failed;
  }

  bool close() {
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = failed ? UCP_EP_CLOSE_FLAG_FORCE : 0;
    void* request = ucp_ep_close_nbx(ep, &param);
    bool ok = !failed;
    if (UCS_PTR_IS_PTR(request)) {
      while (ucp_request_check_status(request) == UCS_INPROGRESS) ucp_worker_progress(worker);
      ucp_request_free(request);
    }
    ucp_worker_destroy(worker);
    ucp_cleanup(context);
    return ok;
  }
};

std::uint64_t made_up_id(std::uint64_t n) { return 0x5eed000000000000ULL + n; }

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 4 && args[0] == "hello") {
    Attacker attacker(args[2], from_hex(args[1]));
    Bytes data = wire::encode_hello("attacker\nforged log line", from_hex(args[3]));
    bool ok = attacker.wait(
        attacker.send(wire::Header{wire::Kind::hello, 0, made_up_id(0), 1, {}}, data, true));
    return attacker.close() && ok ? 0 : 1;
  }
  if (args.size() == 6 && args[0] == "calls") {
    Attacker attacker(args[2], from_hex(args[1]));
    const unsigned long senders = std::stoul(args[3]);
    const unsigned long calls = std::stoul(args[4]);
    const Bytes payload(std::stoul(args[5]), std::byte{0x41});
    std::deque<void*> in_flight;
    bool ok = true;
    for (unsigned long i = 0; i < calls && ok; ++i) {
      wire::Header header{wire::Kind::call, 0, made_up_id(1 + i % senders), i + 1, "echo"};
      in_flight.push_back(attacker.send(header, payload, false));
      while (in_flight.size() > 64 && ok) {
        ok = attacker.wait(in_flight.front());
        in_flight.pop_front();
      }
    }
    for (void* request : in_flight) ok = attacker.wait(request) && ok;
    return attacker.close() && ok ? 0 : 1;
  }
  std::fprintf(stderr,
               "usage: courier_attack hello ADDRESS_HEX TLS GARBAGE_HEX\n"
               "       courier_attack calls ADDRESS_HEX TLS SENDERS CALLS BYTES\n");
  return 2;
}
