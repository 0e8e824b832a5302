// Parsing and formatting of "host:port" / "[v6]:port" endpoints.
#include "slipway/rendezvous/endpoint.hpp"

#include <charconv>
#include <stdexcept>

namespace slipway::rendezvous {
namespace {

[[noreturn]] void bad(std::string_view text, std::string_view why) {
  throw std::invalid_argument("rendezvous endpoint '" + std::string(text) + "' " +
                              std::string(why) +
                              " (expected host:port, e.g. 127.0.0.1:4242 or [::1]:4242)");
}

}  // namespace

Endpoint parse_endpoint(std::string_view text) {
  Endpoint ep;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos) bad(text, "has no closing ']'");
    ep.host = std::string(text.substr(1, close - 1));
    if (close + 1 >= text.size() || text[close + 1] != ':') bad(text, "has no ':port' after ']'");
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) bad(text, "has no ':port'");
    if (text.find(':') != colon) bad(text, "looks like a bare IPv6 address: put it in brackets");
    ep.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
  }
  if (ep.host.empty()) bad(text, "has an empty host");
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
    bad(text, "has no valid port (1-65535)");
  }
  ep.port = static_cast<std::uint16_t>(value);
  return ep;
}

std::string format_endpoint(std::string_view host, std::uint16_t port) {
  if (host.find(':') != std::string_view::npos) {
    return "[" + std::string(host) + "]:" + std::to_string(port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

}  // namespace slipway::rendezvous
