// Little-endian unsigned integers in byte buffers, as every courier wire
// format (message header, TCP frame prefix, courier address) lays them out.
//
// Contract: put_le writes exactly `size` bytes (1 to 8) of `value`'s low
// bytes at `out`; get_le reads exactly `size` bytes at `in`. The caller
// has checked that they are there.
#pragma once

#include <cstddef>
#include <cstdint>

namespace slipway::channels::detail {

inline void put_le(std::byte* out, std::uint64_t value, std::size_t size) noexcept {
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<std::byte>(value >> (8 * i));
}

inline std::uint64_t get_le(const std::byte* in, std::size_t size) noexcept {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < size; ++i) {
    value |= std::uint64_t{std::to_integer<std::uint8_t>(in[i])} << (8 * i);
  }
  return value;
}

}  // namespace slipway::channels::detail
