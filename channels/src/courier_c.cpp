// The C ABI (courier.h) over the C++ endpoint API: every entry point catches
// every exception and reports it as a status plus message.
#include "slipway/core/contract.hpp"
#include "slipway/channels/courier.h"

#include <cstring>
#include <memory>
#include <new>

#include "slipway/channels/c_abi.hpp"
#include "slipway/channels/rendezvous_directory.hpp"

using namespace slipway::channels;
using c_abi::guarded;
using c_abi::hand_over;
using c_abi::report;
using c_abi::status_of;

namespace slipway::channels::c_abi {

int status_of(Errc code) {
  switch (code) {
    case Errc::timeout: return SLIPWAY_E_TIMEOUT;
    case Errc::remote_error: return SLIPWAY_E_REMOTE;
    case Errc::no_such_method: return SLIPWAY_E_NO_SUCH_METHOD;
    case Errc::message_too_large: return SLIPWAY_E_MESSAGE_TOO_LARGE;
    case Errc::overloaded: return SLIPWAY_E_OVERLOADED;
    case Errc::peer_restarted: return SLIPWAY_E_PEER_RESTARTED;
    case Errc::peer_lost: return SLIPWAY_E_PEER_LOST;
    case Errc::not_resolved: return SLIPWAY_E_NOT_RESOLVED;
    case Errc::closed: return SLIPWAY_E_CLOSED;
    case Errc::would_deadlock: return SLIPWAY_E_WOULD_DEADLOCK;
    case Errc::invalid_argument: return SLIPWAY_E_INVALID_ARGUMENT;
    case Errc::transport: return SLIPWAY_E_TRANSPORT;
    case Errc::protocol: return SLIPWAY_E_PROTOCOL;
  }
  return SLIPWAY_E_INTERNAL;
}

namespace {
void copy_text(char* out, std::size_t capacity, const std::string& text) {
  std::size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}
}  // namespace

int report(slipway_error* error, int code, const std::string& message, const std::string& remote) {
  if (error) {
    error->code = code;
    copy_text(error->message, sizeof error->message, message);
    copy_text(error->remote_message, sizeof error->remote_message, remote);
  }
  return code;
}

void hand_over(Bytes value, slipway_buffer* reply) {
  if (!reply) return;
  auto* owner = new Bytes(std::move(value));
  reply->data = owner->data();
  reply->size = owner->size();
  reply->owner = owner;
}

}  // namespace slipway::channels::c_abi

namespace {

Bytes copy_request(const void* data, std::size_t size) {
  if (size > 0 && !data) throw ChannelError(Errc::invalid_argument, "request is NULL with a size");
  const auto* begin = static_cast<const std::byte*>(data);
  return Bytes(begin, begin + size);
}

Timeout timeout_of(std::int64_t timeout_ms) {
  if (timeout_ms < 0) return std::nullopt;
  return std::chrono::milliseconds(timeout_ms);
}

std::string text_or_empty(const char* text) { return text ? text : ""; }

}  // namespace

extern "C" {

const char* slipway_status_name(int code) {
  switch (code) {
    case SLIPWAY_OK: return "ok";
    case SLIPWAY_E_PENDING: return "pending";
    case SLIPWAY_E_INTERNAL: return "internal";
    default: break;
  }
  for (int c = static_cast<int>(Errc::timeout); c <= static_cast<int>(Errc::protocol); ++c) {
    if (status_of(static_cast<Errc>(c)) == code) return to_string(static_cast<Errc>(c)).data();
  }
  return "unknown";
}

void slipway_endpoint_options_init(slipway_endpoint_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->directory = SLIPWAY_DIRECTORY_AUTO;
  options->caller_progress = 1;
  options->poll_limit_us = -1;
}

slipway_endpoint* slipway_endpoint_create(const slipway_endpoint_options* options,
                                          slipway_error* error) {
  slipway_endpoint* out = nullptr;
  guarded(error, [&] {
    slipway_endpoint_options defaults;
    slipway_endpoint_options_init(&defaults);
    const slipway_endpoint_options& o = options ? *options : defaults;
    EndpointOptions cpp;
    cpp.name = text_or_empty(o.name);
    cpp.tls = text_or_empty(o.tls);
    cpp.net_devices = text_or_empty(o.net_devices);
    cpp.rndv_thresh = text_or_empty(o.rndv_thresh);
    if (o.max_message_bytes > 0) cpp.max_message_bytes = o.max_message_bytes;
    cpp.handler_threads = o.handler_threads;
    if (o.default_timeout_ms > 0) cpp.default_timeout = std::chrono::milliseconds(o.default_timeout_ms);
    cpp.caller_progress = o.caller_progress != 0;
    if (o.poll_limit_us >= 0) cpp.poll_limit = std::chrono::microseconds(o.poll_limit_us);
    if (o.busy_poll_us > 0) cpp.busy_poll = std::chrono::microseconds(o.busy_poll_us);
    std::shared_ptr<AddressDirectory> directory;
    if (o.directory == SLIPWAY_DIRECTORY_RENDEZVOUS ||
        (o.directory == SLIPWAY_DIRECTORY_AUTO && std::getenv(slipway::core::env::kRendezvous))) {
      directory = RendezvousDirectory::from_environment();
    }
    auto endpoint = std::make_unique<slipway_endpoint>();
    endpoint->endpoint = std::make_unique<Endpoint>(std::move(cpp), std::move(directory));
    out = endpoint.release();
  });
  return out;
}

void slipway_endpoint_destroy(slipway_endpoint* endpoint) {
  try {
    delete endpoint;
  } catch (...) {
  }
}

void slipway_endpoint_address(const slipway_endpoint* endpoint, const void** data, size_t* size) {
  const Bytes& address = endpoint->endpoint->address();
  if (data) *data = address.data();
  if (size) *size = address.size();
}

const char* slipway_endpoint_name(const slipway_endpoint* endpoint) {
  return endpoint->endpoint->name().c_str();
}

int slipway_endpoint_register(slipway_endpoint* endpoint, const char* method,
                              slipway_handler handler, void* user, slipway_error* error) {
  return guarded(error, [&] {
    if (!method || !handler) throw ChannelError(Errc::invalid_argument, "method and handler are required");
    endpoint->endpoint->register_async_method(
        method, [handler, user](ByteView request, Responder responder) {
          auto* r = new slipway_responder{std::move(responder)};
          handler(user, request.data(), request.size(), r);
        });
  });
}

int slipway_endpoint_publish(slipway_endpoint* endpoint, const char* node, uint32_t replica,
                             slipway_error* error) {
  return guarded(error, [&] {
    if (node) {
      endpoint->endpoint->publish(node, replica);
    } else {
      endpoint->endpoint->publish();
    }
  });
}

int slipway_endpoint_replicas(slipway_endpoint* endpoint, const char* node, int64_t timeout_ms,
                              uint32_t* count, slipway_error* error) {
  return guarded(error, [&] {
    if (!node || !count) throw ChannelError(Errc::invalid_argument, "node and count are required");
    *count = endpoint->endpoint->replica_count(
        node, std::chrono::milliseconds(std::max<int64_t>(timeout_ms, 0)));
  });
}

int slipway_endpoint_live_replicas(slipway_endpoint* endpoint, const char* node, int64_t timeout_ms,
                                   uint32_t* replicas, uint32_t capacity, uint32_t* count,
                                   slipway_error* error) {
  return guarded(error, [&] {
    if (!node || !count || (capacity > 0 && !replicas)) {
      throw ChannelError(Errc::invalid_argument, "node, count and (with a capacity) replicas are required");
    }
    const auto live = endpoint->endpoint->live_replicas(
        node, std::chrono::milliseconds(std::max<int64_t>(timeout_ms, 0)));
    *count = static_cast<uint32_t>(live.size());
    for (std::size_t i = 0; i < live.size() && i < capacity; ++i) replicas[i] = live[i];
  });
}

slipway_handle* slipway_endpoint_resolve(slipway_endpoint* endpoint, const char* node,
                                         uint32_t replica, slipway_error* error) {
  slipway_handle* out = nullptr;
  guarded(error, [&] {
    if (!node) throw ChannelError(Errc::invalid_argument, "node is required");
    out = new slipway_handle{endpoint->endpoint->resolve(node, replica)};
  });
  return out;
}

slipway_handle* slipway_endpoint_connect(slipway_endpoint* endpoint, const void* address,
                                         size_t size, const char* label, slipway_error* error) {
  slipway_handle* out = nullptr;
  guarded(error, [&] {
    if (!address) throw ChannelError(Errc::invalid_argument, "address is required");
    out = new slipway_handle{endpoint->endpoint->connect(
        ByteView(static_cast<const std::byte*>(address), size), text_or_empty(label))};
  });
  return out;
}

int slipway_responder_reply(slipway_responder* responder, const void* data, size_t size) {
  std::unique_ptr<slipway_responder> owned(responder);
  return guarded(nullptr, [&] { owned->responder.reply(copy_request(data, size)); });
}

int slipway_responder_fail(slipway_responder* responder, const char* message) {
  std::unique_ptr<slipway_responder> owned(responder);
  return guarded(nullptr, [&] { owned->responder.fail(text_or_empty(message)); });
}

void slipway_handle_destroy(slipway_handle* handle) {
  try {
    delete handle;
  } catch (...) {
  }
}

const char* slipway_handle_name(const slipway_handle* handle) { return handle->handle.name().c_str(); }

int slipway_call(const slipway_handle* handle, const char* method, const void* request,
                 size_t size, int64_t timeout_ms, slipway_buffer* reply, slipway_error* error) {
  return guarded(error, [&] {
    if (!method) throw ChannelError(Errc::invalid_argument, "method is required");
    hand_over(handle->handle.call(method, copy_request(request, size), timeout_of(timeout_ms)),
              reply);
  });
}

slipway_future* slipway_call_async(const slipway_handle* handle, const char* method,
                                   const void* request, size_t size, int64_t timeout_ms,
                                   slipway_error* error) {
  slipway_future* out = nullptr;
  guarded(error, [&] {
    if (!method) throw ChannelError(Errc::invalid_argument, "method is required");
    auto future = std::make_unique<slipway_future>();
    future->reply = handle->handle.call_async(method, copy_request(request, size), timeout_of(timeout_ms));
    out = future.release();
  });
  return out;
}

slipway_future* slipway_send(const slipway_handle* handle, const char* method, const void* request,
                             size_t size, int64_t timeout_ms, slipway_error* error) {
  slipway_future* out = nullptr;
  guarded(error, [&] {
    if (!method) throw ChannelError(Errc::invalid_argument, "method is required");
    auto future = std::make_unique<slipway_future>();
    future->oneway = true;
    future->sent = handle->handle.send(method, copy_request(request, size), timeout_of(timeout_ms));
    out = future.release();
  });
  return out;
}

int slipway_future_wait(slipway_future* future, int64_t timeout_ms, slipway_buffer* reply,
                        slipway_error* error) {
  bool pending = false;
  int status = guarded(error, [&] {
    bool valid = future->oneway ? future->sent.valid() : future->reply.valid();
    if (!valid) throw ChannelError(Errc::invalid_argument, "this future's outcome was already taken");
    if (timeout_ms >= 0) {
      auto wait = std::chrono::milliseconds(timeout_ms);
      auto state = future->oneway ? future->sent.wait_for(wait) : future->reply.wait_for(wait);
      if (state != std::future_status::ready) {
        pending = true;
        return;
      }
    }
    if (future->oneway) {
      future->sent.get();
    } else {
      hand_over(future->reply.get(), reply);
    }
  });
  if (pending) return report(error, SLIPWAY_E_PENDING, "not complete yet");
  return status;
}

void slipway_future_destroy(slipway_future* future) {
  try {
    delete future;
  } catch (...) {
  }
}

void slipway_buffer_free(slipway_buffer* buffer) {
  if (!buffer) return;
  delete static_cast<Bytes*>(buffer->owner);
  buffer->owner = nullptr;
  buffer->data = nullptr;
  buffer->size = 0;
}

}  // extern "C"
