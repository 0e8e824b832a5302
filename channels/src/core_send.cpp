// Sending one courier message on a link: the message owns its header and
// payload until the link is done with them, counts itself in flight on
// the link and the endpoint, and reports a call's send as an event.
#include "endpoint_core.hpp"

namespace slipway::channels::detail {
namespace {

class SendOperation final : public OutgoingMessage {
 public:
  SendOperation(EndpointCore* core, wire::Encoded header, Payload payload, std::uint64_t call_id,
                bool report_success, std::shared_ptr<std::size_t> in_flight)
      : OutgoingMessage(header, std::move(payload)),
        core_(core),
        call_id_(call_id),
        report_success_(report_success),
        in_flight_(std::move(in_flight)),
        total_in_flight_(core->sends_in_flight()) {
    ++*in_flight_;
    ++*total_in_flight_;
  }

  void complete(ucs_status_t status, std::size_t) noexcept override {
    --*in_flight_;
    --*total_in_flight_;
    if (call_id_ == 0 || (status == UCS_OK && !report_success_)) return;
    try {
      Event event;
      event.type = Event::Type::send_done;
      event.id = call_id_;
      event.status = status;
      core_->push(std::move(event));
    } catch (...) {
      // No memory to report it: the call times out instead.
    }
  }

 private:
  EndpointCore* core_;
  std::uint64_t call_id_;
  bool report_success_;
  std::shared_ptr<std::size_t> in_flight_;        // the link's sends in flight
  std::shared_ptr<std::size_t> total_in_flight_;  // the courier endpoint's
};

}  // namespace

void EndpointCore::send_message(Link& link, unsigned am_id, const wire::Header& header,
                                Payload payload, std::uint64_t call_id, bool report_success,
                                std::uint32_t am_flags) {
  const wire::Encoded encoded = wire::encode(header);
  // A small payload goes at once where the link can (a short message over
  // UCX): no SendOperation to allocate; its outcome is reported as the
  // operation's inline completion would.
  if (const auto* bytes = std::get_if<Bytes>(&payload); bytes && bytes->size() <= Link::kSendNowMax) {
    ucs_status_t status = UCS_OK;
    if (link.send_now(am_id, encoded, *bytes, am_flags, status)) {
      if (call_id != 0 && (status != UCS_OK || report_success)) {
        Event event;
        event.type = Event::Type::send_done;
        event.id = call_id;
        event.status = status;
        push(std::move(event));
      }
      return;
    }
  }
  link.send(am_id,
            std::make_unique<SendOperation>(this, encoded, std::move(payload), call_id,
                                            report_success, link.in_flight_counter()),
            am_flags);
}

}  // namespace slipway::channels::detail
