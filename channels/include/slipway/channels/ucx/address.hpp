// Checking a UCX worker address before UCX sees it. UCX 1.13 unpacks a
// worker address (ucp_ep_create -> ucp_address_unpack) without knowing its
// length and asserts on what it does not expect (an unknown format version
// aborts the process), so one garbage address from a peer would kill us.
// parse_worker_address() walks the same layout UCX 1.13 packs
// (src/ucp/wireup/address.c, formats v1 and v2) with every length checked
// against the bytes given; AddressCheck adds what UCX's lane selection and
// the transports then rely on (sane performance figures, device and
// interface addresses present where this side's transports read them).
//
// Contract: parse_worker_address() never reads outside `address`; it accepts
// what ucp_worker_query() of UCX 1.13 produces (any transports, v1 or v2,
// with or without debug names and client ids, outside unified mode) and
// nothing with a trailing byte, an endpoint address, or more devices or
// transports than UCX itself can index. AddressCheck::problem() is empty
// only for addresses it is safe to hand to ucp_ep_create of the worker
// whose own address built the check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "slipway/channels/bytes.hpp"

namespace slipway::channels::ucx {

// Far above any real worker address (a few hundred bytes per device).
inline constexpr std::size_t kMaxWorkerAddressBytes = 16 * 1024;
// UCX 1.13 indexes devices in 64-bit masks and per-resource arrays of 128.
inline constexpr std::size_t kMaxAddressDevices = 64;
inline constexpr std::size_t kMaxAddressTransports = 128;  // UCP_MAX_RESOURCES
inline constexpr unsigned kMaxMemoryDomainIndex = 63;      // UCP_MAX_MDS - 1

// One transport interface listed in a worker address.
struct AddressEntry {
  std::uint16_t transport = 0;  // UCX's checksum of the transport's name
  std::size_t device_bytes = 0;
  std::size_t iface_bytes = 0;
};

struct WorkerAddressLayout {
  unsigned version = 0;  // 0: UCX's v1, 1: v2
  std::size_t devices = 0;
  std::vector<AddressEntry> entries;
};

struct ParsedAddress {
  std::optional<WorkerAddressLayout> layout;
  std::string error;  // set iff !layout: what is wrong, and where
};

ParsedAddress parse_worker_address(ByteView address);

class AddressCheck {
 public:
  // Built from this worker's own address. Throws ChannelError
  // (Errc::transport) when that does not parse: a UCX whose address format
  // this check does not know, so peers' addresses could not be checked.
  explicit AddressCheck(ByteView own_address);
  // Empty when `peer` may be handed to ucp_ep_create; otherwise why not.
  std::string problem(ByteView peer) const;

 private:
  struct Transport {
    bool device_address = false;  // this side's interfaces read one
    std::set<std::size_t> iface_bytes;
  };
  std::map<std::uint16_t, Transport> local_;
};

}  // namespace slipway::channels::ucx
