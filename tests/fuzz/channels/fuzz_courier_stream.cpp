// libFuzzer target for what a stranger can send to a courier endpoint's TCP
// port before anyone is authenticated: a stream of frames, each a prefix
// (decode_frame_prefix), a message header (wire::decode) and, for a hello,
// its data (wire::decode_hello) with the caller's courier address
// (parse_courier_address). Properties: no crash or out-of-bounds read
// (ASan/UBSan); every refusal says why; an accepted prefix and address
// re-encode to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "courier_address.hpp"
#include "slipway/channels/wire.hpp"
#include "tcp_frame.hpp"

using namespace slipway::channels;
using namespace slipway::channels::detail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteView rest(reinterpret_cast<const std::byte*>(data), size);
  while (rest.size() >= kFramePrefixBytes) {
    auto decoded = decode_frame_prefix(rest.first(kFramePrefixBytes), std::uint64_t{1} << 40);
    if (!decoded.prefix) {
      if (decoded.error.empty()) std::abort();
      return 0;  // the connection is closed here
    }
    const auto again = encode_frame_prefix(*decoded.prefix);
    if (std::memcmp(again.data(), rest.data(), kFramePrefixBytes) != 0) std::abort();
    rest = rest.subspan(kFramePrefixBytes);
    if (rest.size() < decoded.prefix->header_length) return 0;
    auto header = wire::decode(rest.first(decoded.prefix->header_length));
    rest = rest.subspan(decoded.prefix->header_length);
    if (!header.header && header.error.empty()) std::abort();
    const std::size_t payload =
        decoded.prefix->payload_length < rest.size() ? decoded.prefix->payload_length : rest.size();
    if (header.header && header.header->kind == wire::Kind::hello) {
      auto hello = wire::decode_hello(rest.first(payload));
      if (!hello.hello && hello.error.empty()) std::abort();
      if (hello.hello) {
        auto address = parse_courier_address(hello.hello->address);
        if (!address.address && address.error.empty()) std::abort();
        if (address.address) {
          const Bytes encoded = encode_courier_address(*address.address);
          if (encoded.size() != hello.hello->address.size() ||
              std::memcmp(encoded.data(), hello.hello->address.data(), encoded.size()) != 0) {
            std::abort();
          }
        }
      }
    }
    rest = rest.subspan(payload);
  }
  return 0;
}
