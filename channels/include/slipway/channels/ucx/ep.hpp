// The RAII owner of one ucp_ep, connected to a remote worker's address with
// peer error handling (a failed peer fails the endpoint's operations and is
// reported to the owner instead of aborting the process).
//
// Contract: create and destroy an Ep only on its worker's owner thread, and
// never from inside a UCX callback. The error callback runs on that thread
// from progress(); it must not destroy the Ep (hand it to the owner's loop
// instead). Destroying an Ep starts its close and returns at once: a flush
// close while it is healthy, a forced close once it failed (as UCX wants for
// failed endpoints); the worker finishes it, and no error callback runs after
// the destructor. Close an endpoint only once the owner's operations on it
// have completed: closing one with rendezvous transfers in flight trips
// UCX 1.13 (courier counts them on its link, link.hpp).
#pragma once

#include <ucp/api/ucp.h>

#include <functional>
#include <memory>

#include "slipway/channels/bytes.hpp"
#include "slipway/channels/ucx/worker.hpp"

namespace slipway::channels::ucx {

class Ep {
 public:
  using ErrorCallback = std::function<void(ucs_status_t status)>;

  // Throws ChannelError: Errc::protocol when the address fails the
  // worker's AddressCheck (UCX never sees it), a UCX error when UCX refuses
  // it (e.g. no common transport).
  static std::unique_ptr<Ep> connect(std::shared_ptr<Worker> worker, ByteView remote_address,
                                     ErrorCallback on_error);
  ~Ep();
  Ep(const Ep&) = delete;
  Ep& operator=(const Ep&) = delete;

  ucp_ep_h get() const noexcept { return handle_; }
  bool failed() const noexcept;

 private:
  struct ErrorSink;
  Ep(std::shared_ptr<Worker> worker, std::unique_ptr<ErrorSink> sink);
  static void on_error(void* arg, ucp_ep_h ep, ucs_status_t status) noexcept;

  std::shared_ptr<Worker> worker_;
  std::unique_ptr<ErrorSink> sink_;
  ucp_ep_h handle_ = nullptr;
};

}  // namespace slipway::channels::ucx
