// ucp_context creation from the UCX_* environment plus explicit settings.
#include "slipway/channels/ucx/context.hpp"

#include "slipway/channels/ucx/status.hpp"

namespace slipway::channels::ucx {
namespace {

struct ConfigOwner {
  ucp_config_t* config = nullptr;
  ~ConfigOwner() {
    if (config) ucp_config_release(config);
  }
};

}  // namespace

std::shared_ptr<Context> Context::create(const ContextSettings& settings) {
  ConfigOwner owner;
  check(ucp_config_read(nullptr, nullptr, &owner.config), "reading the UCX configuration");
  for (const auto& [name, value] : settings.config) {
    ucs_status_t status = ucp_config_modify(owner.config, name.c_str(), value.c_str());
    if (status != UCS_OK) {
      throw ChannelError(Errc::invalid_argument,
                         describe(status, "UCX setting " + name + "=" + value + " was refused") +
                             "; check the [node.NAME.ucx] table or the UCX_" + name + " variable");
    }
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME;
  params.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
  params.name = settings.name.c_str();
  ucp_context_h handle = nullptr;
  ucs_status_t status = ucp_init(&params, owner.config, &handle);
  if (status != UCS_OK) {
    throw error(status, "initialising UCX (check UCX_TLS / UCX_NET_DEVICES: `ucx_info -d` lists "
                        "the transports and devices of this host)");
  }
  return std::shared_ptr<Context>(new Context(handle));
}

Context::~Context() { ucp_cleanup(handle_); }

}  // namespace slipway::channels::ucx
