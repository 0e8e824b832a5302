// A courier link over a UCX endpoint: one active message per message, the
// header and payload kept by the message until UCX is done (UCX 1.13 reads
// a pending send's header until it completes; a gathered payload is copied
// into one buffer first; over shared memory payloads
// up to kSharedMemoryEagerMax go eagerly, larger ones by UCX's rendezvous
// protocol, zero-copy where the transport can: transport_plan.hpp).
#include "link.hpp"
#include "transport_plan.hpp"

namespace slipway::channels::detail {

UcxLink::UcxLink(std::unique_ptr<ucx::Ep> ep, bool shared_memory)
    : ep_(std::move(ep)), shared_memory_(shared_memory) {}

void UcxLink::send(unsigned am_id, std::unique_ptr<OutgoingMessage> message, std::uint32_t flags) {
  ucp_ep_h handle = ep_->get();
  // A gathered payload is copied into one buffer here: UCX's IOV datatype
  // is not used (untried with UCX 1.13's rendezvous under peer error handling).
  const ByteView data = message->contiguous();
  const OutgoingMessage& sending = *message;
  flags = ucx_send_flags(shared_memory_, data.size(), flags);
  ucp_request_param_t param{};
  if (flags != 0) {
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = flags;
  }
  ucx::track(std::move(message), ucx::OperationKind::send, param,
             [&](const ucp_request_param_t& p) {
               const auto& header = sending.header();
               return ucp_am_send_nbx(handle, am_id, header.bytes.data(), header.size,
                                      data.empty() ? nullptr : data.data(), data.size(), &p);
             });
}

bool UcxLink::send_now(unsigned am_id, const wire::Encoded& header, ByteView payload,
                       std::uint32_t flags, ucs_status_t& status) {
  flags = ucx_send_flags(shared_memory_, payload.size(), flags);
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
  if (flags != 0) {
    param.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = flags;
  }
  ucs_status_ptr_t result =
      ucp_am_send_nbx(ep_->get(), am_id, header.bytes.data(), header.size,
                      payload.empty() ? nullptr : payload.data(), payload.size(), &param);
  // With FORCE_IMM_CMPL UCX returns no request: done, or an error status
  // (UCS_ERR_NO_RESOURCE: not at once).
  status = UCS_PTR_STATUS(result);
  return status != UCS_ERR_NO_RESOURCE;
}

}  // namespace slipway::channels::detail
