// Byte buffers as channels pass them: an owned message (Bytes) and a view of
// one (ByteView), with conversions from and to text.
//
// Contract: a Bytes given to a channel by value is moved into the send and
// owned by it until UCX is done with it (no copy); a ByteView handed to a
// handler is valid only during that call.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace slipway::channels {

using Bytes = std::vector<std::byte>;
using ByteView = std::span<const std::byte>;

inline Bytes to_bytes(std::string_view text) {
  Bytes out(text.size());
  if (!text.empty()) std::memcpy(out.data(), text.data(), text.size());
  return out;
}

inline Bytes to_bytes(ByteView view) { return Bytes(view.begin(), view.end()); }

inline std::string to_string(ByteView view) {
  return std::string(reinterpret_cast<const char*>(view.data()), view.size());
}

inline ByteView as_view(std::string_view text) {
  return ByteView(reinterpret_cast<const std::byte*>(text.data()), text.size());
}

}  // namespace slipway::channels
