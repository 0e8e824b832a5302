// The address of this host as seen from another: the source address the
// kernel picks for a route to `peer` (no packet is sent).
//
// Contract: `peer` is a host name or an IPv4/IPv6 address; returns the
// local address in text form, or nothing when `peer` cannot be resolved or
// has no route. Loopback peers give the loopback address.
#pragma once

#include <optional>
#include <string>

namespace slipway::exec {

std::optional<std::string> local_address_toward(const std::string& peer);

// Splits "host:port" / "[v6addr]:port" into its host part; empty on error.
std::string endpoint_host(const std::string& endpoint);

}  // namespace slipway::exec
