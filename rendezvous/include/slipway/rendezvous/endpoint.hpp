// Rendezvous endpoints as text: "host:port", with IPv6 literals in brackets
// ("[::1]:4242"), the form SLIPWAY_RDZV carries.
//
// Contract: parse_endpoint() accepts exactly those forms (port 1..65535) and
// otherwise throws std::invalid_argument with a message that quotes the input
// and shows a valid example.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace slipway::rendezvous {

struct Endpoint {
  std::string host;  // without brackets
  std::uint16_t port = 0;
  bool operator==(const Endpoint&) const = default;
};

Endpoint parse_endpoint(std::string_view text);

// "host:port", or "[host]:port" when host contains ':'.
std::string format_endpoint(std::string_view host, std::uint16_t port);

}  // namespace slipway::rendezvous
