// Names of channels' error codes.
#include "slipway/channels/error.hpp"

namespace slipway::channels {

std::string_view to_string(Errc code) {
  switch (code) {
    case Errc::timeout: return "timeout";
    case Errc::remote_error: return "remote_error";
    case Errc::no_such_method: return "no_such_method";
    case Errc::message_too_large: return "message_too_large";
    case Errc::overloaded: return "overloaded";
    case Errc::peer_restarted: return "peer_restarted";
    case Errc::peer_lost: return "peer_lost";
    case Errc::not_resolved: return "not_resolved";
    case Errc::closed: return "closed";
    case Errc::would_deadlock: return "would_deadlock";
    case Errc::invalid_argument: return "invalid_argument";
    case Errc::transport: return "transport";
    case Errc::protocol: return "protocol";
  }
  return "unknown";
}

}  // namespace slipway::channels
