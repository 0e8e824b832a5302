// Receiving courier messages, from UCX's active-message callbacks and the
// TCP transport's frames alike: decode the header, check a caller's proof of
// the program's secret, drop requests from senders not admitted, enforce
// the size bounds before anything is allocated, copy whole payloads or start
// reading deferred ones (UCX's zero-copy rendezvous, the rest of a TCP
// frame), and queue the result as an event. Nothing here throws into UCX.
#include <cstdio>

#include "endpoint_core.hpp"
#include "slipway/rendezvous/printable.hpp"

namespace slipway::channels::detail {
namespace {

class ReceiveOperation final : public ucx::Operation {
 public:
  ReceiveOperation(EndpointCore* core, Event event)
      : core_(core), event_(std::move(event)), size_(event_.data.size()) {
    core_->receiving_bytes() += size_;
  }
  ~ReceiveOperation() override { core_->receiving_bytes() -= size_; }
  std::byte* buffer() { return event_.data.data(); }

  void complete(ucs_status_t status, std::size_t length) noexcept override {
    try {
      if (status != UCS_OK || length != event_.data.size()) {
        if (event_.type != Event::Type::request) return;  // the call times out
        Event rejected;
        rejected.type = Event::Type::rejected;
        rejected.header = event_.header;
        rejected.reject_status = wire::RemoteStatus::bad_request;
        rejected.message = "receiving the request's payload failed: " +
                           std::string(ucs_status_string(status));
        core_->push(std::move(rejected));
        return;
      }
      core_->push(std::move(event_));
    } catch (...) {
      // No memory: the call times out.
    }
  }

 private:
  EndpointCore* core_;
  Event event_;
  std::size_t size_;
};

}  // namespace

ucs_status_t EndpointCore::on_request_am(void* arg, const void* header, std::size_t header_length,
                                         void* data, std::size_t length,
                                         const ucp_am_recv_param_t* param) noexcept {
  auto* core = static_cast<EndpointCore*>(arg);
  return core->receive_ucx(true, header, header_length, data, length, param);
}

ucs_status_t EndpointCore::on_reply_am(void* arg, const void* header, std::size_t header_length,
                                       void* data, std::size_t length,
                                       const ucp_am_recv_param_t* param) noexcept {
  auto* core = static_cast<EndpointCore*>(arg);
  return core->receive_ucx(false, header, header_length, data, length, param);
}

ucs_status_t EndpointCore::receive_ucx(bool request, const void* header, std::size_t header_length,
                                       void* data, std::size_t length,
                                       const ucp_am_recv_param_t* param) noexcept {
  // UCX's rendezvous protocol: the payload is fetched zero-copy into our buffer.
  PayloadReader read_payload = [this, data](std::unique_ptr<ucx::Operation> op, std::byte* buffer,
                                            std::size_t size) {
    ucp_request_param_t recv_param{};
    return ucx::track(
        std::move(op), ucx::OperationKind::receive_am_data, recv_param,
        [&](const ucp_request_param_t& p) {
          return ucp_am_recv_data_nbx(worker_->get(), data, buffer, size, &p);
        },
        size);
  };
  return receive(request, ByteView(static_cast<const std::byte*>(header), header_length), data,
                 length, (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0, read_payload,
                 nullptr);  // UCX connections need no eviction order
}

ucs_status_t EndpointCore::receive_tcp(unsigned am_id, ByteView header, std::byte* data,
                                       std::size_t length, const PayloadReader* read_payload,
                                       bool& trusted) noexcept {
  static const PayloadReader kNone;
  return receive(am_id == wire::kRequestAm, header, data, length, read_payload != nullptr,
                 read_payload ? *read_payload : kNone, &trusted);
}

bool EndpointCore::from_proven_callee(const wire::Header& header) const {
  auto call = calls_.find(header.call_id);
  if (call == calls_.end()) return false;
  auto peer = peers_.find(call->second.peer);
  return peer != peers_.end() && peer->second.admitted && peer->second.callee == header.sender;
}

ucs_status_t EndpointCore::receive(bool request, ByteView header, const void* data,
                                   std::size_t length, bool deferred,
                                   const PayloadReader& read_payload, bool* trusted) noexcept {
  try {
    auto decoded = wire::decode(header);
    if (!decoded.header) return UCS_OK;  // not ours to answer: dropped
    Event event;
    event.type = request ? Event::Type::request : Event::Type::reply;
    event.header = std::move(*decoded.header);
    const auto kind = event.header.kind;
    if (wire::to_callee(kind) != request) return UCS_OK;  // wrong channel: dropped
    if (kind == wire::Kind::challenge || kind == wire::Kind::proof) {
      // Fixed sizes, always whole: anything else is not ours.
      const std::size_t size = kind == wire::Kind::proof ? wire::kMacBytes : wire::kChallengeBytes;
      if (deferred || length != size) return UCS_OK;
      ByteView bytes(static_cast<const std::byte*>(data), length);
      // A proof is checked here, before anything after it on its connection
      // is received: the calls that follow a proof that holds are read.
      if (kind == wire::Kind::proof) {
        if (!proof_holds(event.header, bytes)) return UCS_OK;
        if (trusted) *trusted = true;
      }
      event.data.assign(bytes.begin(), bytes.end());
      push(std::move(event));
      return UCS_OK;
    }
    if (kind == wire::Kind::call || kind == wire::Kind::oneway) {
      if (!announced(event.header.sender)) {
        // Not an admitted caller: nothing is received or kept, no one answered.
        counters_.calls_without_hello++;
        if (!warned_without_hello_) {
          warned_without_hello_ = true;
          std::fprintf(stderr,
                       "courier endpoint %s: dropping requests from a sender that has not proven "
                       "the program's secret (not a task of this program?); further ones are "
                       "dropped silently\n",
                       rendezvous::printable(name_).c_str());
        }
        return UCS_OK;
      }
      if (trusted) *trusted = true;
    } else if (trusted && (kind == wire::Kind::reply_ok || kind == wire::Kind::reply_error) &&
               from_proven_callee(event.header)) {
      *trusted = true;
    }

    // A request we refuse is answered with the reason; a reply we refuse
    // fails our call with it. A deferred payload not taken is dropped.
    auto reject = [&](wire::RemoteStatus status, std::string message) {
      event.type = request ? Event::Type::rejected : Event::Type::reply_refused;
      event.reject_status = status;
      event.message = std::move(message);
      counters_.refused++;
      push(std::move(event));
      return UCS_OK;
    };

    std::size_t limit =
        kind == wire::Kind::hello ? wire::kMaxHelloBytes : options_.max_message_bytes;
    if (length > limit) {
      std::string what = request ? "a request" : "a reply";
      return reject(wire::RemoteStatus::message_too_large,
                    what + " of " + std::to_string(length) + " bytes exceeds max_message_bytes = " +
                        std::to_string(limit) + " of courier endpoint " + name_);
    }
    const bool payload = kind == wire::Kind::call || kind == wire::Kind::oneway ||
                         kind == wire::Kind::reply_ok || kind == wire::Kind::reply_error;
    if (!deferred) {
      if (payload) counters_.eager_receives++;
      event.data.assign(static_cast<const std::byte*>(data),
                        static_cast<const std::byte*>(data) + length);
      push(std::move(event));
      return UCS_OK;
    }
    if (receiving_bytes_ + length > options_.max_receive_bytes) {
      return reject(wire::RemoteStatus::overloaded,
                    "courier endpoint " + name_ + " is already receiving " +
                        std::to_string(receiving_bytes_) + " bytes (max_receive_bytes = " +
                        std::to_string(options_.max_receive_bytes) + "); retry later");
    }
    if (!read_payload) return UCS_OK;
    if (payload) counters_.rendezvous_receives++;
    event.data.resize(length);
    auto op = std::make_unique<ReceiveOperation>(this, std::move(event));
    std::byte* buffer = op->buffer();
    // Its completion queues it (or its failure as a refusal): either way
    // on_request or on_rejected dequeues it.
    return read_payload(std::move(op), buffer, length) == UCS_INPROGRESS ? UCS_INPROGRESS
                                                                         : UCS_OK;
  } catch (...) {
    // No memory for the event or the buffer: refuse a deferred payload
    // (a UCX sender sees the error), drop a whole one (the call times out).
    return deferred ? UCS_ERR_NO_MEMORY : UCS_OK;
  }
}

}  // namespace slipway::channels::detail
