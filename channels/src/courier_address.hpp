// A courier endpoint's published address: how peers reach it, by UCX's
// shared memory from the same host, or by the courier's own TCP transport
// (tcp_transport.hpp) from anywhere. UCX's TCP transport is never used:
// its port parses a stranger's bytes before anyone is authenticated and
// UCX 1.13 aborts the process on malformed ones (docs/channels.md, "Who
// may call").
//
// Layout (little-endian): "SWA" | u8 version 1 | u8 host key length | host
// key | u8 TCP address length | TCP address (numeric IPv4 or IPv6; empty:
// no TCP) | u16 TCP port | u32 UCX worker address length | UCX worker
// address (empty: no UCX).
//
// Contract: parse_courier_address() accepts exactly what
// encode_courier_address() produces, never reads past `bytes`, and bounds
// every part (the UCX address itself is checked by ucx::AddressCheck when
// it is connected). local_host_key() names this host and network
// namespace: peers with the same key may share memory with us.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "slipway/channels/bytes.hpp"
#include "slipway/channels/ucx/address.hpp"
#include "slipway/channels/wire.hpp"

namespace slipway::channels::detail {

inline constexpr std::size_t kMaxHostKeyBytes = 128;
inline constexpr std::size_t kMaxTcpAddressBytes = 64;
inline constexpr std::size_t kMaxCourierAddressBytes =
    4 + 1 + kMaxHostKeyBytes + 1 + kMaxTcpAddressBytes + 2 + 4 + ucx::kMaxWorkerAddressBytes;
static_assert(kMaxCourierAddressBytes <= wire::kMaxAddressBytes);

struct CourierAddress {
  std::string host_key;
  std::string tcp_address;  // empty: not reachable by TCP
  std::uint16_t tcp_port = 0;
  Bytes ucx;                // empty: not reachable by UCX
};

struct ParsedCourierAddress {
  std::optional<CourierAddress> address;
  std::string error;  // set iff !address
};

Bytes encode_courier_address(const CourierAddress& address);
ParsedCourierAddress parse_courier_address(ByteView bytes);

// The kernel's boot id and this process's network namespace.
std::string local_host_key();

}  // namespace slipway::channels::detail
