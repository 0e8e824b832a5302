// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zlib computes it.
#include <array>

#include "slipway/replay/checkpoint.hpp"

namespace slipway::replay {

namespace {
constexpr std::array<std::uint32_t, 256> make_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1U) != 0 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<std::uint32_t, 256> kTable = make_table();
}  // namespace

std::uint32_t crc32(std::span<const std::byte> bytes, std::uint32_t crc) {
  crc = ~crc;
  for (std::byte b : bytes) crc = kTable[(crc ^ std::to_integer<std::uint32_t>(b)) & 0xFFU] ^ (crc >> 8);
  return ~crc;
}

}  // namespace slipway::replay
