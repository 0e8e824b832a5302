// ucp_ep ownership: connect to a worker address (checked first) with peer
// error handling; the destructor starts a flush close (a forced one once the
// endpoint failed).
#include "slipway/channels/ucx/ep.hpp"

#include <algorithm>

#include "slipway/channels/ucx/status.hpp"

namespace slipway::channels::ucx {
namespace {

// Zeros after a copy of the address handed to UCX: a transport that reads a
// fixed-size device or interface address from a shorter one (UCX passes
// pointers, not lengths) reads these instead of foreign memory.
constexpr std::size_t kAddressPadding = 256;

}  // namespace

// What UCX's error callback points at. It outlives the Ep until the close
// completes, so a late callback finds `closed` set instead of freed memory.
struct Ep::ErrorSink final : Operation {
  ErrorCallback callback;
  bool closed = false;
  bool failed = false;
  void complete(ucs_status_t, std::size_t) noexcept override {}
};

std::unique_ptr<Ep> Ep::connect(std::shared_ptr<Worker> worker, ByteView remote_address,
                                ErrorCallback on_error) {
  if (remote_address.empty()) {
    throw ChannelError(Errc::invalid_argument, "an empty UCX worker address cannot be connected");
  }
  std::string problem = worker->address_check().problem(remote_address);
  if (!problem.empty()) {
    throw ChannelError(Errc::protocol, "not a valid UCX worker address (" +
                                           std::to_string(remote_address.size()) +
                                           " bytes): " + problem);
  }
  Bytes padded(remote_address.size() + kAddressPadding);
  std::copy(remote_address.begin(), remote_address.end(), padded.begin());
  auto sink = std::make_unique<ErrorSink>();
  sink->callback = std::move(on_error);
  ucp_ep_params_t params{};
  params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER;
  params.address = reinterpret_cast<const ucp_address_t*>(padded.data());
  params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  params.err_handler.cb = &Ep::on_error;
  params.err_handler.arg = sink.get();
  ucp_ep_h handle = nullptr;
  check(ucp_ep_create(worker->get(), &params, &handle), "connecting to a UCX worker address");
  std::unique_ptr<Ep> ep(new Ep(std::move(worker), std::move(sink)));
  ep->handle_ = handle;
  return ep;
}

Ep::Ep(std::shared_ptr<Worker> worker, std::unique_ptr<ErrorSink> sink)
    : worker_(std::move(worker)), sink_(std::move(sink)) {}

Ep::~Ep() {
  sink_->closed = true;
  bool force = sink_->failed;
  worker_->start_close(handle_, force, std::move(sink_));
}

bool Ep::failed() const noexcept { return sink_->failed; }

void Ep::on_error(void* arg, ucp_ep_h, ucs_status_t status) noexcept {
  auto* sink = static_cast<ErrorSink*>(arg);
  if (sink->closed || sink->failed) return;
  sink->failed = true;
  try {
    if (sink->callback) sink->callback(status);
  } catch (...) {
    // The owner's callback only records the failure; nothing may cross UCX.
  }
}

}  // namespace slipway::channels::ucx
