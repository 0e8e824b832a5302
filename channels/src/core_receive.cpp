// Receiving courier messages: the UCX active-message callbacks decode the
// header, check a caller's proof of the program's secret, drop requests
// from senders not admitted, enforce the
// size bounds before anything is allocated, copy eager payloads or start the
// zero-copy receive of rendezvous ones, and queue the result as an event.
// Nothing here throws into UCX.
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
  return static_cast<EndpointCore*>(arg)->receive(true, header, header_length, data, length,
                                                  param);
}

ucs_status_t EndpointCore::on_reply_am(void* arg, const void* header, std::size_t header_length,
                                       void* data, std::size_t length,
                                       const ucp_am_recv_param_t* param) noexcept {
  return static_cast<EndpointCore*>(arg)->receive(false, header, header_length, data, length,
                                                  param);
}

ucs_status_t EndpointCore::receive(bool request, const void* header, std::size_t header_length,
                                   void* data, std::size_t length,
                                   const ucp_am_recv_param_t* param) noexcept {
  const bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
  try {
    auto decoded = wire::decode(ByteView(static_cast<const std::byte*>(header), header_length));
    if (!decoded.header) return UCS_OK;  // not ours to answer: dropped
    Event event;
    event.type = request ? Event::Type::request : Event::Type::reply;
    event.header = std::move(*decoded.header);
    const auto kind = event.header.kind;
    if (wire::to_callee(kind) != request) return UCS_OK;  // wrong channel: dropped
    if (kind == wire::Kind::challenge || kind == wire::Kind::proof) {
      // Fixed sizes, always eager: anything else is not ours.
      const std::size_t size = kind == wire::Kind::proof ? wire::kMacBytes : wire::kChallengeBytes;
      if (rndv || length != size) return UCS_OK;
      ByteView bytes(static_cast<const std::byte*>(data), length);
      // A proof is checked here, before anything after it on its connection
      // is received: the calls that follow a proof that holds are read.
      if (kind == wire::Kind::proof && !proof_holds(event.header, bytes)) return UCS_OK;
      event.data.assign(bytes.begin(), bytes.end());
      push(std::move(event));
      return UCS_OK;
    }
    if ((kind == wire::Kind::call || kind == wire::Kind::oneway) &&
        !announced(event.header.sender)) {
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

    // A request we refuse is answered with the reason; a reply we refuse
    // fails our call with it. A rendezvous payload not received is dropped.
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
    if (!rndv) {
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
    if (payload) counters_.rendezvous_receives++;
    event.data.resize(length);
    auto op = std::make_unique<ReceiveOperation>(this, std::move(event));
    std::byte* buffer = op->buffer();
    // Its completion queues it (or its failure as a refusal): either way
    // on_request or on_rejected dequeues it.
    ucp_request_param_t recv_param{};
    return ucx::track(
        std::move(op), ucx::OperationKind::receive_am_data, recv_param,
        [&](const ucp_request_param_t& p) {
          return ucp_am_recv_data_nbx(worker_->get(), data, buffer, length, &p);
        },
        length) == UCS_INPROGRESS
               ? UCS_INPROGRESS
               : UCS_OK;
  } catch (...) {
    // No memory for the event or the buffer: refuse a rendezvous payload
    // (its sender sees the error), drop an eager one (the call times out).
    return rndv ? UCS_ERR_NO_MEMORY : UCS_OK;
  }
}

}  // namespace slipway::channels::detail
