// The RAII owner of one ucp_context (UCP with active messages and wake-up).
//
// Contract: create() reads the UCX_* environment (UCX_TLS, UCX_NET_DEVICES,
// UCX_RNDV_THRESH, ... as slipway's launch layer exports them per node) and
// then applies `config` on top, each entry as ucp_config_modify(NAME, VALUE)
// (NAME without the UCX_ prefix, e.g. {"TLS", "tcp"}). Workers keep their
// context alive; the context is cleaned up when the last owner goes.
#pragma once

#include <ucp/api/ucp.h>

#include <map>
#include <memory>
#include <string>

namespace slipway::channels::ucx {

struct ContextSettings {
  std::map<std::string, std::string> config;
  std::string name = "slipway";
};

class Context {
 public:
  // Throws ChannelError (transport, or invalid_argument for a bad setting).
  static std::shared_ptr<Context> create(const ContextSettings& settings);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  ucp_context_h get() const noexcept { return handle_; }

 private:
  explicit Context(ucp_context_h handle) : handle_(handle) {}
  ucp_context_h handle_;
};

}  // namespace slipway::channels::ucx
