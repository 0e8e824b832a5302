// This host's name, and its address as seen from another: the source
// address the kernel picks for a route to `peer` (no packet is sent).
//
// Contract: `peer` is a host name or an IPv4/IPv6 address; returns the
// local address in text form, or nothing when `peer` cannot be resolved or
// has no route. Loopback peers give the loopback address.
#pragma once

#include <optional>
#include <string>

namespace slipway::base {

std::optional<std::string> local_address_toward(const std::string& peer);

// The name of the network interface that holds `address` ("eth0"); nothing
// when no interface has it.
std::optional<std::string> interface_of(const std::string& address);

// Splits "host:port" / "[v6addr]:port" into its host part; empty on error.
std::string endpoint_host(const std::string& endpoint);

// This host's name (gethostname), "localhost" when it has none.
std::string this_host_name();

}  // namespace slipway::base
