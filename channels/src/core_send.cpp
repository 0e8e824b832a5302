// Sending one courier message: the header and payload are owned by the send
// operation until UCX is done with them (large payloads go zero-copy by
// UCX's rendezvous protocol, so the buffer must stay put until then).
#include "endpoint_core.hpp"

namespace slipway::channels::detail {
namespace {

class SendOperation final : public ucx::Operation {
 public:
  SendOperation(EndpointCore* core, wire::Encoded header, Bytes payload, std::uint64_t call_id,
                bool report_success, std::shared_ptr<std::size_t> in_flight)
      : core_(core),
        header_(header),
        payload_(std::move(payload)),
        call_id_(call_id),
        report_success_(report_success),
        in_flight_(std::move(in_flight)),
        total_in_flight_(core->sends_in_flight()) {
    ++*in_flight_;
    ++*total_in_flight_;
  }

  const wire::Encoded& header() const { return header_; }
  const Bytes& payload() const { return payload_; }

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
  wire::Encoded header_;
  Bytes payload_;
  std::uint64_t call_id_;
  bool report_success_;
  std::shared_ptr<std::size_t> in_flight_;        // the UCX endpoint's sends in flight
  std::shared_ptr<std::size_t> total_in_flight_;  // the courier endpoint's
};

}  // namespace

void EndpointCore::send_message(ucx::Ep& ep, unsigned am_id, const wire::Header& header,
                                Bytes payload, std::uint64_t call_id, bool report_success,
                                std::uint32_t am_flags) {
  auto op = std::make_unique<SendOperation>(this, wire::encode(header), std::move(payload),
                                            call_id, report_success, ep.in_flight_counter());
  ucp_ep_h handle = ep.get();
  const SendOperation& sending = *op;
  ucp_request_param_t param{};
  if (am_flags != 0) {
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = am_flags;
  }
  ucx::track(std::move(op), ucx::OperationKind::send, param,
             [&](const ucp_request_param_t& p) {
               const auto& h = sending.header();
               const auto& data = sending.payload();
               return ucp_am_send_nbx(handle, am_id, h.bytes.data(), h.size,
                                      data.empty() ? nullptr : data.data(), data.size(), &p);
             });
}

}  // namespace slipway::channels::detail
