// UCX requests: the completion of one non-blocking operation (send, receive,
// endpoint close) handed to an Operation object that UCX owns, through the
// request's user_data, until the operation completes.
//
// Contract: track() starts the operation with a request parameter whose
// callback and user_data it fills in; the Operation's complete() runs
// exactly once: inline when UCX completes (or fails) the operation at once,
// otherwise later from ucp_worker_progress on the worker's owner thread.
// complete() must not throw and must not call ucp_worker_progress. The
// request handle is freed before complete() runs.
#pragma once

#include <ucp/api/ucp.h>

#include <cstddef>
#include <memory>

namespace slipway::channels::ucx {

class Operation {
 public:
  virtual ~Operation() = default;
  // `length` is the received length for receives, 0 otherwise.
  virtual void complete(ucs_status_t status, std::size_t length) noexcept = 0;
};

enum class OperationKind { send, receive_am_data };

// `start` is called with the filled-in parameter and returns what the UCX
// call returned. Returns UCS_OK (completed), UCS_INPROGRESS or the error.
// `length` is what complete() is given when the operation completes at once.
template <typename Start>
ucs_status_t track(std::unique_ptr<Operation> op, OperationKind kind, ucp_request_param_t param,
                   Start&& start, std::size_t length = 0);

// Implementation details below.
namespace detail {
void on_send_complete(void* request, ucs_status_t status, void* user_data) noexcept;
void on_am_data_complete(void* request, ucs_status_t status, std::size_t length,
                         void* user_data) noexcept;
ucs_status_t finish_start(std::unique_ptr<Operation>& op, ucs_status_ptr_t result,
                          std::size_t length) noexcept;
}  // namespace detail

template <typename Start>
ucs_status_t track(std::unique_ptr<Operation> op, OperationKind kind, ucp_request_param_t param,
                   Start&& start, std::size_t length) {
  param.op_attr_mask |= UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  if (kind == OperationKind::send) {
    param.cb.send = &detail::on_send_complete;
  } else {
    param.cb.recv_am = &detail::on_am_data_complete;
  }
  param.user_data = op.get();
  ucs_status_ptr_t result = start(static_cast<const ucp_request_param_t&>(param));
  return detail::finish_start(op, result, length);
}

}  // namespace slipway::channels::ucx
