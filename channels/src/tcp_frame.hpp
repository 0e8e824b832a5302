// The prefix of a courier TCP frame (tcp_transport.hpp): which active
// message it is and how long its header and payload are.
//
// Layout, little-endian, 16 bytes: u32 magic "SWT1" | u16 active-message id
// (wire::kRequestAm or kReplyAm) | u16 header length (1 to
// wire::kMaxHeaderBytes) | u64 payload length (at most `max_payload`).
//
// Contract: decode_frame_prefix() reads exactly kFramePrefixBytes and
// accepts exactly what encode_frame_prefix() produces within the bounds;
// anything else is refused with a reason.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "slipway/channels/bytes.hpp"

namespace slipway::channels::detail {

inline constexpr std::size_t kFramePrefixBytes = 16;
inline constexpr std::uint32_t kFrameMagic = 0x31545753;  // "SWT1"

struct FramePrefix {
  unsigned am_id = 0;
  std::size_t header_length = 0;
  std::uint64_t payload_length = 0;
};

struct DecodedFramePrefix {
  std::optional<FramePrefix> prefix;
  std::string error;  // set iff !prefix
};

std::array<std::byte, kFramePrefixBytes> encode_frame_prefix(const FramePrefix& prefix);
// `bytes` must hold kFramePrefixBytes.
DecodedFramePrefix decode_frame_prefix(ByteView bytes, std::uint64_t max_payload);

}  // namespace slipway::channels::detail
