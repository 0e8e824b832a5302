// Maps UCX status codes to channels' error codes and messages.
#include "slipway/channels/ucx/status.hpp"

namespace slipway::channels::ucx {

Errc errc_for(ucs_status_t status) noexcept {
  switch (status) {
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_REJECTED:
    case UCS_ERR_NOT_CONNECTED:
    case UCS_ERR_IO_ERROR:
      return Errc::peer_lost;
    case UCS_ERR_TIMED_OUT:
      return Errc::timeout;
    case UCS_ERR_CANCELED:
      return Errc::closed;
    case UCS_ERR_EXCEEDS_LIMIT:
    case UCS_ERR_MESSAGE_TRUNCATED:
      return Errc::message_too_large;
    case UCS_ERR_INVALID_PARAM:
    case UCS_ERR_INVALID_ADDR:
      return Errc::invalid_argument;
    default:
      return Errc::transport;
  }
}

std::string describe(ucs_status_t status, const std::string& what) {
  return what + ": " + ucs_status_string(status);
}

ChannelError error(ucs_status_t status, const std::string& what) {
  return ChannelError(errc_for(status), describe(status, what));
}

}  // namespace slipway::channels::ucx
