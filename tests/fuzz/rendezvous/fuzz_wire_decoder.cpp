// libFuzzer target for the rendezvous wire decoder. Properties checked on
// every input: decoding never crashes or reads out of bounds (ASan/UBSan);
// whatever decodes re-encodes to a frame that decodes to the same message;
// the frame reader splits any byte stream without overrunning its bound.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "slipway/rendezvous/frame_reader.hpp"
#include "slipway/rendezvous/wire.hpp"

using namespace slipway::rendezvous;

namespace {

Limits fuzz_limits() {
  Limits l;
  l.max_frame_bytes = 1 << 16;
  l.max_key_bytes = 64;
  l.max_value_bytes = 256;
  l.max_blob_bytes = 256;
  l.max_name_bytes = 32;
  l.max_reason_bytes = 128;
  l.max_ranges = 8;
  l.max_members = 64;
  return l;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Limits limits = fuzz_limits();
  const std::span<const std::uint8_t> input(data, size);

  wire::Message message;
  std::string error;
  if (wire::decode(input, limits, message, error)) {
    std::string frame;
    wire::encode(message, frame);
    wire::Message again;
    const auto body = std::span(reinterpret_cast<const std::uint8_t*>(frame.data()) + 4, frame.size() - 4);
    if (!wire::decode(body, limits, again, error) || !(again == message)) std::abort();
  } else if (error.empty()) {
    std::abort();  // a refusal always says why
  }

  // The same bytes as a stream, cut where the first byte says.
  wire::FrameReader reader(256);
  const std::size_t cut = size ? data[0] % (size + 1) : 0;
  std::size_t frames = 0;
  auto on_frame = [&](std::span<const std::uint8_t> body) {
    if (body.empty() || body.size() > 256) std::abort();
    wire::Message m;
    std::string e;
    (void)wire::decode(body, limits, m, e);
    ++frames;
    return true;
  };
  if (reader.feed(input.first(cut), on_frame)) (void)reader.feed(input.subspan(cut), on_frame);
  if (reader.buffered_bytes() > 256 + 4) std::abort();
  return 0;
}
