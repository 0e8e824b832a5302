// Completion plumbing of UCX requests: the static callbacks hand each
// request's result to the Operation it carries, then free the request.
#include "slipway/channels/ucx/request.hpp"

namespace slipway::channels::ucx::detail {

void on_send_complete(void* request, ucs_status_t status, void* user_data) noexcept {
  std::unique_ptr<Operation> op(static_cast<Operation*>(user_data));
  ucp_request_free(request);
  op->complete(status, 0);
}

void on_am_data_complete(void* request, ucs_status_t status, std::size_t length,
                         void* user_data) noexcept {
  std::unique_ptr<Operation> op(static_cast<Operation*>(user_data));
  ucp_request_free(request);
  op->complete(status, length);
}

ucs_status_t finish_start(std::unique_ptr<Operation>& op, ucs_status_ptr_t result,
                          std::size_t length) noexcept {
  if (result == nullptr) {
    op->complete(UCS_OK, length);
    return UCS_OK;
  }
  if (UCS_PTR_IS_ERR(result)) {
    ucs_status_t status = UCS_PTR_STATUS(result);
    op->complete(status, 0);
    return status;
  }
  op.release();  // UCX owns it now, through user_data, until the callback
  return UCS_INPROGRESS;
}

}  // namespace slipway::channels::ucx::detail
