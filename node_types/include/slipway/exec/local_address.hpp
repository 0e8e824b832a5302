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

// The name of the network interface that holds `address` ("eth0"); nothing
// when no interface has it.
std::optional<std::string> interface_of(const std::string& address);

// Splits "host:port" / "[v6addr]:port" into its host part; empty on error.
std::string endpoint_host(const std::string& endpoint);

// The address this host's tasks advertise: SLIPWAY_ADVERTISE_HOST when set,
// else `given` when not empty, else this host's address on the route to
// the rendezvous at `rendezvous_endpoint` (one every peer of the program can
// reach); empty when none of them gives one.
std::string advertise_host_from_environment(const std::string& given,
                                            const std::string& rendezvous_endpoint);

}  // namespace slipway::exec
