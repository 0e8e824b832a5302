// Encoding and checked decoding of courier TCP frame prefixes.
#include "tcp_frame.hpp"

#include "little_endian.hpp"
#include "slipway/channels/wire.hpp"

namespace slipway::channels::detail {

std::array<std::byte, kFramePrefixBytes> encode_frame_prefix(const FramePrefix& prefix) {
  std::array<std::byte, kFramePrefixBytes> out{};
  put_le(out.data(), kFrameMagic, 4);
  put_le(out.data() + 4, prefix.am_id, 2);
  put_le(out.data() + 6, prefix.header_length, 2);
  put_le(out.data() + 8, prefix.payload_length, 8);
  return out;
}

DecodedFramePrefix decode_frame_prefix(ByteView bytes, std::uint64_t max_payload) {
  DecodedFramePrefix out;
  if (bytes.size() != kFramePrefixBytes) {
    out.error = "a frame prefix of " + std::to_string(bytes.size()) + " bytes";
    return out;
  }
  const std::byte* p = bytes.data();
  FramePrefix prefix;
  prefix.am_id = static_cast<unsigned>(get_le(p + 4, 2));
  prefix.header_length = static_cast<std::size_t>(get_le(p + 6, 2));
  prefix.payload_length = get_le(p + 8, 8);
  if (get_le(p, 4) != kFrameMagic) {
    out.error = "not a courier frame (no \"SWT1\" magic)";
  } else if (prefix.am_id != wire::kRequestAm && prefix.am_id != wire::kReplyAm) {
    out.error = "a frame of unknown message id " + std::to_string(prefix.am_id);
  } else if (prefix.header_length == 0 || prefix.header_length > wire::kMaxHeaderBytes) {
    out.error = "a frame header of " + std::to_string(prefix.header_length) + " bytes (1 to " +
                std::to_string(wire::kMaxHeaderBytes) + ")";
  } else if (prefix.payload_length > max_payload) {
    out.error = "a frame payload of " + std::to_string(prefix.payload_length) + " bytes";
  } else {
    out.prefix = prefix;
  }
  return out;
}

}  // namespace slipway::channels::detail
