// Sending one courier message on a link: the message owns its header and
// payload until the link is done with them, counts itself in flight on
// the link and the endpoint, and reports a call's send as an event.
#include "endpoint_core.hpp"

namespace slipway::channels::detail {
namespace {

// A call's send outcome as the event its owner hears: a failure always,
// a success only when asked for (a oneway send's future waits for it).
void report_send(EndpointCore& core, std::uint64_t call_id, bool report_success,
                 ucs_status_t status) {
  if (call_id == 0 || (status == UCS_OK && !report_success)) return;
  Event event;
  event.type = Event::Type::send_done;
  event.id = call_id;
  event.status = status;
  core.push(std::move(event));
}

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
    try {
      report_send(*core_, call_id_, report_success_, status);
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
      report_send(*this, call_id, report_success, status);
      return;
    }
  }
  link.send(am_id,
            std::make_unique<SendOperation>(this, encoded, std::move(payload), call_id,
                                            report_success, link.in_flight_counter()),
            am_flags);
}

}  // namespace slipway::channels::detail
