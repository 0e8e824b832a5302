// What the C ABIs built into libslipway-courier.so share (courier.h, and
// replay.h in node_types/replay): the objects behind courier.h's opaque
// types, and guarded(), which turns every exception into a status plus a
// message. C++ only, never installed: C programs see courier.h alone.
//
// Contract: guarded(error, body) runs body and returns SLIPWAY_OK, or the
// slipway_status of the exception it threw (ChannelError by its code,
// bad_alloc and anything else SLIPWAY_E_INTERNAL); `error`, when not NULL,
// is filled either way (message and remote message truncated to fit).
#pragma once

#include <cstring>
#include <future>
#include <memory>
#include <new>
#include <string>

#include "slipway/channels/courier.h"
#include "slipway/channels/endpoint.hpp"

struct slipway_endpoint {
  std::unique_ptr<slipway::channels::Endpoint> endpoint;
};
struct slipway_handle {
  slipway::channels::Handle handle;
};
struct slipway_future {
  bool oneway = false;
  std::future<slipway::channels::Bytes> reply;
  std::future<void> sent;
};
struct slipway_responder {
  slipway::channels::Responder responder;
};

namespace slipway::channels::c_abi {

int status_of(Errc code);
int report(slipway_error* error, int code, const std::string& message, const std::string& remote = {});

template <typename Body>
int guarded(slipway_error* error, Body&& body) {
  try {
    body();
    if (error) report(error, SLIPWAY_OK, {});
    return SLIPWAY_OK;
  } catch (const ChannelError& e) {
    return report(error, status_of(e.code()), e.what(), e.remote_message());
  } catch (const std::bad_alloc&) {
    return report(error, SLIPWAY_E_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return report(error, SLIPWAY_E_INTERNAL, e.what());
  } catch (...) {
    return report(error, SLIPWAY_E_INTERNAL, "unknown exception");
  }
}

// A reply handed to C: reply->data/size, freed by slipway_buffer_free.
void hand_over(Bytes value, slipway_buffer* reply);

}  // namespace slipway::channels::c_abi
