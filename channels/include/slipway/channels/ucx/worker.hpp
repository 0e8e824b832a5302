// The RAII owner of one ucp_worker, and its event fd for idle waits.
//
// Threading: a worker is created in UCS_THREAD_MODE_SERIALIZED. One thread
// at a time, its current owner (channels' ProgressLoop hands ownership
// between its progress thread and waiting callers under a lock), calls any
// member other than address()/max_am_header()/event_fd() after creation;
// every UCX callback of this worker runs on the owner from progress().
//
// Contract: the worker keeps its context alive; endpoints keep their worker
// alive. The worker's address is queried once at creation; create() throws
// ChannelError when it is not one AddressCheck understands (then peers'
// addresses could not be checked either). Endpoint closes
// started by start_close() finish during later progress(); closing() counts
// those not finished, so the owner can drain them before the worker goes.
#pragma once

#include <ucp/api/ucp.h>

#include <cstddef>
#include <memory>

#include "slipway/channels/bytes.hpp"
#include "slipway/channels/ucx/address.hpp"
#include "slipway/channels/ucx/context.hpp"
#include "slipway/channels/ucx/request.hpp"

namespace slipway::channels::ucx {

class Worker {
 public:
  static std::shared_ptr<Worker> create(std::shared_ptr<Context> context);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  ucp_worker_h get() const noexcept { return handle_; }
  // The worker's address, as peers pass it to Ep::connect.
  const Bytes& address() const noexcept { return address_; }
  // What a peer's address must pass before this worker connects to it
  // (built from address(); Ep::connect applies it).
  const AddressCheck& address_check() const noexcept { return *address_check_; }
  // The largest active-message header ucp_am_send_nbx accepts.
  std::size_t max_am_header() const noexcept { return max_am_header_; }
  // The fd to wait on (epoll) after arm() returned true.
  int event_fd() const noexcept { return event_fd_; }

  // One ucp_worker_progress; returns whether anything happened.
  bool progress() noexcept { return ucp_worker_progress(handle_) != 0; }
  // ucp_worker_arm: true when armed (safe to wait on event_fd()), false
  // when events are pending and progress() must run first.
  bool arm();

  // Registers (or with cb == nullptr removes) the handler of active message `id`.
  void set_am_handler(unsigned id, ucp_am_recv_callback_t cb, void* arg);

  // Starts closing `ep` (force: drop outstanding operations; else flush
  // them). `keep` is destroyed once the close completed (e.g. the state
  // the endpoint's error callback points at).
  void start_close(ucp_ep_h ep, bool force, std::unique_ptr<Operation> keep) noexcept;
  std::size_t closing() const noexcept { return closing_; }

 private:
  friend class CloseOperation;
  Worker(std::shared_ptr<Context> context, ucp_worker_h handle);
  std::shared_ptr<Context> context_;
  ucp_worker_h handle_;
  Bytes address_;
  std::unique_ptr<AddressCheck> address_check_;
  std::size_t max_am_header_ = 0;
  int event_fd_ = -1;
  std::size_t closing_ = 0;
};

}  // namespace slipway::channels::ucx
