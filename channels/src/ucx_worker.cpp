// ucp_worker ownership: creation with wake-up support, address query, arming,
// active-message handler registration and asynchronous endpoint closes.
#include "slipway/channels/ucx/worker.hpp"

#include <chrono>
#include <cstdio>

#include "slipway/channels/ucx/status.hpp"

namespace slipway::channels::ucx {
namespace {

// Owns what must outlive an endpoint's close and counts the close down.
class CloseOperation final : public Operation {
 public:
  CloseOperation(std::size_t* closing, std::unique_ptr<Operation> keep)
      : closing_(closing), keep_(std::move(keep)) {
    ++*closing_;
  }
  void complete(ucs_status_t, std::size_t) noexcept override { --*closing_; }

 private:
  std::size_t* closing_;
  std::unique_ptr<Operation> keep_;
};

}  // namespace

std::shared_ptr<Worker> Worker::create(std::shared_ptr<Context> context) {
  ucp_worker_params_t params{};
  params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  params.thread_mode = UCS_THREAD_MODE_SERIALIZED;  // one thread at a time (ProgressLoop)
  ucp_worker_h handle = nullptr;
  check(ucp_worker_create(context->get(), &params, &handle), "creating a UCX worker");
  // From here the Worker owns the handle (its destructor destroys it).
  std::shared_ptr<Worker> worker(new Worker(std::move(context), handle));

  ucp_worker_attr_t attr{};
  attr.field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS | UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER;
  check(ucp_worker_query(handle, &attr), "querying the UCX worker's address");
  const auto* begin = reinterpret_cast<const std::byte*>(attr.address);
  worker->address_.assign(begin, begin + attr.address_length);
  worker->max_am_header_ = attr.max_am_header;
  ucp_worker_release_address(handle, attr.address);
  worker->address_check_ = std::make_unique<AddressCheck>(worker->address_);

  check(ucp_worker_get_efd(handle, &worker->event_fd_), "getting the UCX worker's event fd");
  return worker;
}

Worker::Worker(std::shared_ptr<Context> context, ucp_worker_h handle)
    : context_(std::move(context)), handle_(handle) {}

Worker::~Worker() {
  // Let started closes finish (their operations own state), then let the
  // worker settle (handshakes with peers still in flight complete or fail)
  // until it has been quiet for a while; both bounded in time.
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::seconds(2);
  while (closing_ > 0 && Clock::now() < deadline) ucp_worker_progress(handle_);
  auto quiet_since = Clock::now();
  auto settle_deadline = Clock::now() + std::chrono::seconds(1);
  while (Clock::now() < settle_deadline && Clock::now() - quiet_since < std::chrono::milliseconds(50)) {
    if (ucp_worker_progress(handle_) != 0) quiet_since = Clock::now();
  }
  if (closing_ > 0) {
    // Destroying a worker with endpoint closes in flight aborts inside UCX;
    // leaving it (its memory, until the process ends) is the lesser harm.
    std::fprintf(stderr, "slipway channels: %zu UCX endpoint closes did not finish; "
                 "leaving the worker undestroyed\n", closing_);
    return;
  }
  ucp_worker_destroy(handle_);
}

bool Worker::arm() {
  ucs_status_t status = ucp_worker_arm(handle_);
  if (status == UCS_ERR_BUSY) return false;
  check(status, "arming the UCX worker");
  return true;
}

void Worker::set_am_handler(unsigned id, ucp_am_recv_callback_t cb, void* arg) {
  ucp_am_handler_param_t param{};
  param.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                     UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
  param.id = id;
  param.cb = cb;
  param.arg = arg;
  param.flags = UCP_AM_FLAG_WHOLE_MSG;
  check(ucp_worker_set_am_recv_handler(handle_, &param), "registering a UCX message handler");
}

void Worker::start_close(ucp_ep_h ep, bool force, std::unique_ptr<Operation> keep) noexcept {
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0;
  auto op = std::make_unique<CloseOperation>(&closing_, std::move(keep));
  track(std::move(op), OperationKind::send, param,
        [ep](const ucp_request_param_t& p) { return ucp_ep_close_nbx(ep, &p); });
}

}  // namespace slipway::channels::ucx
