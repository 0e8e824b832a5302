// A bounds-checked walk of UCX 1.13's packed worker address (the layout of
// ucp_address_do_pack / ucp_address_unpack in src/ucp/wireup/address.c of
// UCX v1.13.1), and the checks a peer's address must pass before
// ucp_ep_create sees it.
#include "slipway/channels/ucx/address.hpp"

#include <cmath>
#include <cstring>

#include "slipway/channels/error.hpp"

namespace slipway::channels::ucx {
namespace {

// Header: low 4 bits the format version; v1 keeps its flags in the high 4
// bits, v2 in the next byte.
constexpr unsigned kVersionV1 = 0;
constexpr unsigned kVersionV2 = 1;
constexpr std::uint8_t kHeaderDebugInfo = 0x1;
constexpr std::uint8_t kHeaderWorkerUuid = 0x2;
constexpr std::uint8_t kHeaderClientId = 0x4;
constexpr std::uint8_t kHeaderAmOnly = 0x8;
constexpr std::uint8_t kHeaderKnownFlags =
    kHeaderDebugInfo | kHeaderWorkerUuid | kHeaderClientId | kHeaderAmOnly;
constexpr std::uint8_t kNullResource = 0xff;  // an address without devices

// Per device: the memory-domain byte, then the device-address length byte.
constexpr std::uint8_t kMdEmptyDevice = 0x80;
constexpr std::uint8_t kMdIndexMaskV1 = 0x1f;
constexpr std::uint8_t kMdIndexMaskV2 = 0x7f;
constexpr std::uint8_t kLast = 0x80;
constexpr std::uint8_t kDeviceNumPaths = 0x40;
constexpr std::uint8_t kDeviceSysDevice = 0x20;
constexpr std::uint8_t kDeviceLengthMask = 0x1f;
// Per transport: the interface-address length byte.
constexpr std::uint8_t kIfaceHasEpAddress = 0x40;
constexpr std::uint8_t kIfaceLengthMask = 0x3f;

// Packed interface attributes: v1 three floats and a u32, v2 three fp8
// numbers, a priority byte, a u16 segment size and u16 flags.
constexpr std::size_t kIfaceAttrBytesV1 = 16;
constexpr std::size_t kIfaceAttrBytesV2 = 8;
constexpr std::uint8_t kFp8ExponentMask = 0x0f;
constexpr std::uint8_t kFp8Nan = 0x0f;

class Reader {
 public:
  explicit Reader(ByteView bytes) : bytes_(bytes) {}
  std::size_t offset() const { return offset_; }
  std::size_t left() const { return bytes_.size() - offset_; }
  bool byte(std::uint8_t& out) {
    if (left() < 1) return false;
    out = std::to_integer<std::uint8_t>(bytes_[offset_++]);
    return true;
  }
  bool peek(std::uint8_t& out) const {
    if (left() < 1) return false;
    out = std::to_integer<std::uint8_t>(bytes_[offset_]);
    return true;
  }
  const std::byte* take(std::size_t n) {
    if (left() < n) return nullptr;
    const std::byte* at = bytes_.data() + offset_;
    offset_ += n;
    return at;
  }
  // A length or index packed as `byte & mask`; in v2 the value `mask`
  // means "the real value is in the next byte".
  bool extended(std::uint8_t first, std::uint8_t mask, unsigned version, std::size_t& out) {
    std::uint8_t value = first & mask;
    if (version != kVersionV1 && value == mask && !byte(value)) return false;
    out = value;
    return true;
  }

 private:
  ByteView bytes_;
  std::size_t offset_ = 0;
};

std::string at(const Reader& reader) { return " at byte " + std::to_string(reader.offset()); }

float float_at(const std::byte* p) {
  float value = 0;
  std::memcpy(&value, p, sizeof value);
  return value;
}

// v1 figures are floats in seconds and bytes/s; UCX's lane scores divide by
// them and assert that the scores compare equal, so NaN, infinities and
// negative times abort it. Real ones are nanoseconds to microseconds and
// MB/s to hundreds of GB/s.
std::string v1_attr_problem(const std::byte* attr) {
  const float overhead = float_at(attr);
  const float bandwidth = float_at(attr + 4);
  const float latency = float_at(attr + 8);
  auto time_ok = [](float t) { return std::isfinite(t) && t >= 0 && t <= 1; };
  if (!time_ok(overhead) || !time_ok(latency)) return "an interface overhead or latency out of range";
  const float magnitude = std::fabs(bandwidth);  // negative: a UCX <= 1.11 peer's shared bandwidth
  if (!std::isfinite(bandwidth) || magnitude < 1 || magnitude > 1e15F) {
    return "an interface bandwidth out of range";
  }
  return {};
}

std::string v2_attr_problem(const std::byte* attr) {
  const auto overhead = std::to_integer<std::uint8_t>(attr[0]);
  const auto bandwidth = std::to_integer<std::uint8_t>(attr[1]);
  const auto latency = std::to_integer<std::uint8_t>(attr[2]);
  for (std::uint8_t v : {overhead, bandwidth, latency}) {
    if ((v & kFp8ExponentMask) == kFp8Nan) return "an interface figure that is not a number";
  }
  if ((bandwidth & kFp8ExponentMask) == 0) return "an interface bandwidth of zero";
  return {};
}

std::string describe(std::uint16_t transport) {
  static const char* digits = "0123456789abcdef";
  std::string out = "transport 0x";
  for (int shift = 12; shift >= 0; shift -= 4) out += digits[(transport >> shift) & 0xf];
  return out;
}

}  // namespace

ParsedAddress parse_worker_address(ByteView address) {
  auto refuse = [](std::string why) { return ParsedAddress{std::nullopt, std::move(why)}; };
  if (address.empty()) return refuse("the address is empty");
  if (address.size() > kMaxWorkerAddressBytes) {
    return refuse("the address has " + std::to_string(address.size()) +
                  " bytes, more than the " + std::to_string(kMaxWorkerAddressBytes) +
                  " a UCX worker address may have here");
  }
  Reader in(address);
  WorkerAddressLayout layout;
  std::uint8_t header = 0;
  in.byte(header);
  layout.version = header & 0x0f;
  std::uint8_t flags = 0;
  if (layout.version == kVersionV1) {
    flags = header >> 4;
  } else if (layout.version == kVersionV2) {
    if (!in.byte(flags)) return refuse("the address ends inside its header");
  } else {
    return refuse("unknown UCX address format version " + std::to_string(layout.version) +
                  " (UCX 1.13 writes v1 or v2)");
  }
  if (flags & ~kHeaderKnownFlags) return refuse("unknown UCX address header flags");
  // UCX 1.13 reads a worker id whenever it unpacks a v1 address, and a v2
  // one's when its flag says so.
  const bool uuid = layout.version == kVersionV1 || (flags & kHeaderWorkerUuid);
  if (uuid && !in.take(8)) return refuse("the address ends inside its worker id");
  if ((flags & kHeaderClientId) && !in.take(8)) return refuse("the address ends inside its client id");
  if (flags & kHeaderDebugInfo) {
    std::uint8_t name_bytes = 0;
    if (!in.byte(name_bytes) || !in.take(name_bytes)) {
      return refuse("the address ends inside its worker name");
    }
  }
  std::uint8_t next = 0;
  if (!in.peek(next)) return refuse("the address ends before its first device");
  if (next == kNullResource) return refuse("the address lists no transports (nothing can reach it)");

  bool last_device = false;
  while (!last_device) {
    if (layout.devices == kMaxAddressDevices) {
      return refuse("the address lists more than " + std::to_string(kMaxAddressDevices) +
                    " devices");
    }
    ++layout.devices;
    std::uint8_t md_byte = 0;
    std::size_t md_index = 0;
    if (!in.byte(md_byte) ||
        !in.extended(md_byte, layout.version == kVersionV1 ? kMdIndexMaskV1 : kMdIndexMaskV2,
                     layout.version, md_index)) {
      return refuse("the address ends inside a device" + at(in));
    }
    if (md_index > kMaxMemoryDomainIndex) {
      return refuse("memory domain index " + std::to_string(md_index) + " out of range" + at(in));
    }
    const bool empty_device = md_byte & kMdEmptyDevice;
    std::uint8_t device_byte = 0;
    std::size_t device_bytes = 0;
    if (!in.byte(device_byte) ||
        !in.extended(device_byte, kDeviceLengthMask, layout.version, device_bytes)) {
      return refuse("the address ends inside a device" + at(in));
    }
    last_device = device_byte & kLast;
    std::uint8_t value = 0;
    if (device_byte & kDeviceNumPaths) {
      if (!in.byte(value)) return refuse("the address ends inside a device" + at(in));
      if (value == 0) return refuse("a device with 0 paths" + at(in));
    }
    if ((device_byte & kDeviceSysDevice) && !in.byte(value)) {
      return refuse("the address ends inside a device" + at(in));
    }
    if (!in.take(device_bytes)) return refuse("the address ends inside a device address" + at(in));

    bool last_iface = empty_device;
    while (!last_iface) {
      if (layout.entries.size() == kMaxAddressTransports) {
        return refuse("the address lists more than " + std::to_string(kMaxAddressTransports) +
                      " transport interfaces");
      }
      AddressEntry entry;
      entry.device_bytes = device_bytes;
      const std::byte* name = in.take(2);
      const std::size_t attr_bytes =
          layout.version == kVersionV1 ? kIfaceAttrBytesV1 : kIfaceAttrBytesV2;
      const std::byte* attr = name ? in.take(attr_bytes) : nullptr;
      if (!attr) return refuse("the address ends inside a transport interface" + at(in));
      entry.transport = static_cast<std::uint16_t>(std::to_integer<unsigned>(name[0]) |
                                                   (std::to_integer<unsigned>(name[1]) << 8));
      std::string bad = layout.version == kVersionV1 ? v1_attr_problem(attr) : v2_attr_problem(attr);
      if (!bad.empty()) return refuse(bad + " (" + describe(entry.transport) + ")" + at(in));
      std::uint8_t iface_byte = 0;
      if (!in.byte(iface_byte) ||
          !in.extended(iface_byte, kIfaceLengthMask, layout.version, entry.iface_bytes)) {
        return refuse("the address ends inside a transport interface" + at(in));
      }
      if (iface_byte & kIfaceHasEpAddress) {
        return refuse("the address carries endpoint addresses (it is not a worker address)" +
                      at(in));
      }
      last_iface = iface_byte & kLast;
      if (!in.take(entry.iface_bytes)) {
        return refuse("the address ends inside an interface address" + at(in));
      }
      layout.entries.push_back(entry);
    }
  }
  if (in.left() != 0) {
    return refuse(std::to_string(in.left()) + " bytes follow the last device" + at(in));
  }
  return ParsedAddress{std::move(layout), {}};
}

AddressCheck::AddressCheck(ByteView own_address) {
  auto own = parse_worker_address(own_address);
  if (!own.layout) {
    throw ChannelError(Errc::transport,
                       "this UCX's worker address does not have the layout slipway checks peers' "
                       "addresses against (UCX 1.13's): " + own.error +
                       "; run slipway with the UCX it was built for");
  }
  for (const auto& entry : own.layout->entries) {
    Transport& transport = local_[entry.transport];
    transport.device_address |= entry.device_bytes > 0;
    transport.iface_bytes.insert(entry.iface_bytes);
  }
}

std::string AddressCheck::problem(ByteView peer) const {
  auto parsed = parse_worker_address(peer);
  if (!parsed.layout) return parsed.error;
  for (const auto& entry : parsed.layout->entries) {
    auto local = local_.find(entry.transport);
    if (local == local_.end()) continue;  // UCX never reads what it has no transport for
    const Transport& mine = local->second;
    // The transport reads a device and an interface address of its own
    // layout; UCX passes a null pointer for an empty one.
    if (mine.device_address && entry.device_bytes == 0) {
      return describe(entry.transport) + " has an empty device address";
    }
    if (!mine.iface_bytes.count(entry.iface_bytes)) {
      return describe(entry.transport) + " has an interface address of " +
             std::to_string(entry.iface_bytes) + " bytes where this side's has " +
             std::to_string(*mine.iface_bytes.begin());
    }
  }
  return {};
}

}  // namespace slipway::channels::ucx
