// Test helpers: encode a message and decode it back from its frame.
#pragma once

#include <span>
#include <string>

#include "slipway/rendezvous/wire.hpp"

namespace slipway::rendezvous::test {

inline std::span<const std::uint8_t> body_of(const std::string& frame) {
  return std::span(reinterpret_cast<const std::uint8_t*>(frame.data()) + 4, frame.size() - 4);
}

inline wire::Message round_trip(const wire::Message& m, const Limits& limits = {}) {
  std::string frame;
  wire::encode(m, frame);
  wire::Message out;
  std::string error;
  if (!wire::decode(body_of(frame), limits, out, error)) throw std::runtime_error(error);
  return out;
}

}  // namespace slipway::rendezvous::test
