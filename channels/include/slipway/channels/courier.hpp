// C++ over courier.h, header-only, for programs built against the installed
// libslipway-courier.so (libslipway-dev: find_package(slipway), target
// slipway::courier): RAII owners of endpoints and handles, errors as
// exceptions. Programs inside this tree use the C++ API (endpoint.hpp).
//
// Contract: every failure throws slipway::courier::Error with courier.h's
// status and message. An Endpoint owns its handlers; it must outlive its
// Handles. A handler answers each call once, through its Responder (a
// Responder dropped unanswered fails the call).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slipway/channels/courier.h"

namespace slipway::courier {

class Error : public std::runtime_error {
 public:
  explicit Error(const slipway_error& e) : std::runtime_error(e.message), code_(e.code), remote_(e.remote_message) {}
  int code() const noexcept { return code_; }
  const std::string& remote_message() const noexcept { return remote_; }

 private:
  int code_;
  std::string remote_;
};

inline void check(int status, const slipway_error& error) {
  if (status != SLIPWAY_OK) throw Error(error);
}

class Responder {
 public:
  explicit Responder(slipway_responder* r) : r_(r) {}
  Responder(Responder&& o) noexcept : r_(std::exchange(o.r_, nullptr)) {}
  Responder& operator=(Responder&&) = delete;
  ~Responder() {
    if (r_) slipway_responder_fail(r_, "returned without replying");
  }
  void reply(std::string_view data) { slipway_responder_reply(std::exchange(r_, nullptr), data.data(), data.size()); }
  void fail(const std::string& message) { slipway_responder_fail(std::exchange(r_, nullptr), message.c_str()); }

 private:
  slipway_responder* r_;
};

class Handle {
 public:
  explicit Handle(slipway_handle* h) : h_(h, &slipway_handle_destroy) {}
  std::string name() const { return slipway_handle_name(h_.get()); }
  // timeout_ms < 0: the endpoint's default.
  std::string call(const std::string& method, std::string_view request, std::int64_t timeout_ms = -1) const {
    slipway_error error;
    slipway_buffer reply{};
    check(slipway_call(h_.get(), method.c_str(), request.data(), request.size(), timeout_ms, &reply, &error), error);
    std::string out(static_cast<const char*>(reply.data), reply.size);
    slipway_buffer_free(&reply);
    return out;
  }
  const slipway_handle* get() const noexcept { return h_.get(); }

 private:
  std::unique_ptr<slipway_handle, decltype(&slipway_handle_destroy)> h_;
};

class Endpoint {
 public:
  using Handler = std::function<void(std::string_view request, Responder responder)>;

  // Defaults: slipway_endpoint_options_init's (inside a slipway program,
  // named NODE.REPLICA with the program's directory).
  Endpoint() : Endpoint(default_options()) {}
  explicit Endpoint(const slipway_endpoint_options& options) : e_(nullptr, &slipway_endpoint_destroy) {
    slipway_error error;
    e_.reset(slipway_endpoint_create(&options, &error));
    if (!e_) throw Error(error);
  }
  static slipway_endpoint_options default_options() {
    slipway_endpoint_options o;
    slipway_endpoint_options_init(&o);
    return o;
  }

  std::string name() const { return slipway_endpoint_name(e_.get()); }
  std::string address() const {
    const void* data = nullptr;
    std::size_t size = 0;
    slipway_endpoint_address(e_.get(), &data, &size);
    return std::string(static_cast<const char*>(data), size);
  }
  void serve(const std::string& method, Handler handler) {
    handlers_.push_back(std::make_unique<Handler>(std::move(handler)));
    slipway_error error;
    check(slipway_endpoint_register(e_.get(), method.c_str(), &Endpoint::dispatch, handlers_.back().get(), &error),
          error);
  }
  // node empty: this task's own node and replica (SLIPWAY_NODE, SLIPWAY_REPLICA).
  void publish(const std::string& node = {}, std::uint32_t replica = 0) {
    slipway_error error;
    check(slipway_endpoint_publish(e_.get(), node.empty() ? nullptr : node.c_str(), replica, &error), error);
  }
  Handle resolve(const std::string& node, std::uint32_t replica) {
    slipway_error error;
    slipway_handle* h = slipway_endpoint_resolve(e_.get(), node.c_str(), replica, &error);
    if (!h) throw Error(error);
    return Handle(h);
  }
  Handle connect(std::string_view address, const std::string& label) {
    slipway_error error;
    slipway_handle* h = slipway_endpoint_connect(e_.get(), address.data(), address.size(), label.c_str(), &error);
    if (!h) throw Error(error);
    return Handle(h);
  }
  slipway_endpoint* get() const noexcept { return e_.get(); }

 private:
  static void dispatch(void* user, const void* request, std::size_t size, slipway_responder* responder) {
    // No exception may cross into C: a handler that throws before it
    // answers has its Responder destroyed on the way out, which fails the call.
    try {
      (*static_cast<Handler*>(user))(std::string_view(static_cast<const char*>(request), size),
                                     Responder(responder));
    } catch (...) {
    }
  }

  std::unique_ptr<slipway_endpoint, decltype(&slipway_endpoint_destroy)> e_;
  std::vector<std::unique_ptr<Handler>> handlers_;  // stable addresses for C
};

}  // namespace slipway::courier
