// Encoding and bounded parsing of courier addresses, and this host's key.
#include "courier_address.hpp"

#include <sys/stat.h>

#include <fstream>
#include <random>

#include "little_endian.hpp"
#include "slipway/channels/error.hpp"

namespace slipway::channels::detail {
namespace {

constexpr char kTag[4] = {'S', 'W', 'A', 1};

void put(Bytes& out, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const std::byte*>(data);
  out.insert(out.end(), bytes, bytes + size);
}

void put_uint(Bytes& out, std::uint64_t value, std::size_t size) {
  out.resize(out.size() + size);
  put_le(out.data() + out.size() - size, value, size);
}

// Reads forward through `bytes`, each read checked against what is left.
struct Reader {
  ByteView bytes;
  std::size_t at = 0;
  bool take(std::size_t size, ByteView& out) {
    if (bytes.size() - at < size) return false;
    out = bytes.subspan(at, size);
    at += size;
    return true;
  }
  bool uint(std::size_t size, std::uint64_t& value) {
    ByteView raw;
    if (!take(size, raw)) return false;
    value = get_le(raw.data(), size);
    return true;
  }
  bool text(std::size_t limit, std::string& out) {
    std::uint64_t size = 0;
    ByteView raw;
    if (!uint(1, size) || size > limit || !take(size, raw)) return false;
    out.assign(reinterpret_cast<const char*>(raw.data()), raw.size());
    return true;
  }
};

}  // namespace

Bytes encode_courier_address(const CourierAddress& address) {
  if (address.host_key.size() > kMaxHostKeyBytes ||
      address.tcp_address.size() > kMaxTcpAddressBytes ||
      address.ucx.size() > ucx::kMaxWorkerAddressBytes) {
    throw ChannelError(Errc::invalid_argument, "a courier address part is too long");
  }
  Bytes out;
  put(out, kTag, sizeof kTag);
  put_uint(out, address.host_key.size(), 1);
  put(out, address.host_key.data(), address.host_key.size());
  put_uint(out, address.tcp_address.size(), 1);
  put(out, address.tcp_address.data(), address.tcp_address.size());
  put_uint(out, address.tcp_port, 2);
  put_uint(out, address.ucx.size(), 4);
  put(out, address.ucx.data(), address.ucx.size());
  return out;
}

ParsedCourierAddress parse_courier_address(ByteView bytes) {
  ParsedCourierAddress result;
  if (bytes.size() > kMaxCourierAddressBytes) {
    result.error = "longer than any courier address (" + std::to_string(bytes.size()) + " bytes)";
    return result;
  }
  Reader in{bytes};
  ByteView tag;
  if (!in.take(sizeof kTag, tag) ||
      !std::equal(tag.begin(), tag.end(), reinterpret_cast<const std::byte*>(kTag))) {
    result.error = "not a courier address (no \"SWA\" tag of version 1)";
    return result;
  }
  CourierAddress address;
  std::uint64_t port = 0, ucx_size = 0;
  ByteView ucx;
  if (!in.text(kMaxHostKeyBytes, address.host_key) ||
      !in.text(kMaxTcpAddressBytes, address.tcp_address) || !in.uint(2, port) ||
      !in.uint(4, ucx_size) || ucx_size > ucx::kMaxWorkerAddressBytes ||
      !in.take(ucx_size, ucx)) {
    result.error = "a courier address cut short or with a part too long";
    return result;
  }
  if (in.at != bytes.size()) {
    result.error = "a courier address with " + std::to_string(bytes.size() - in.at) +
                   " bytes too many";
    return result;
  }
  if (address.tcp_address.empty() != (port == 0)) {
    result.error = "a courier address with a TCP address but no port, or a port but no address";
    return result;
  }
  address.tcp_port = static_cast<std::uint16_t>(port);
  address.ucx.assign(ucx.begin(), ucx.end());
  result.address = std::move(address);
  return result;
}

std::string local_host_key() {
  std::string boot_id;
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::getline(in, boot_id);
  if (boot_id.size() > 64) boot_id.resize(64);
  if (boot_id.empty()) {
    // No boot id: a key no other process has, so memory is never shared.
    std::random_device random;
    boot_id = "unknown-" + std::to_string(random()) + std::to_string(random());
  }
  struct stat ns{};
  std::string net = ::stat("/proc/self/ns/net", &ns) == 0 ? std::to_string(ns.st_ino) : "?";
  return boot_id + "/net:" + net;
}

}  // namespace slipway::channels::detail
