// libFuzzer target for the rendezvous wire decoder. Properties checked on
// every input: decoding never crashes or reads out of bounds (ASan/UBSan);
// whatever decodes re-encodes to a frame that decodes to the same message;
// the frame reader splits any byte stream without overrunning its bound, and
// holding frames back (backpressure, resumed by empty feeds) changes nothing
// of what comes out.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

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
  std::vector<std::string> frames;
  auto on_frame = [&](std::span<const std::uint8_t> body) {
    if (body.empty() || body.size() > 256) std::abort();
    wire::Message m;
    std::string e;
    (void)wire::decode(body, limits, m, e);
    frames.emplace_back(body.begin(), body.end());
    return true;
  };
  bool ok = reader.feed(input.first(cut), on_frame);
  if (ok) ok = reader.feed(input.subspan(cut), on_frame);
  if (reader.buffered_bytes() > 256 + 4) std::abort();

  // Again, holding the rest back after some frames (backpressure) and
  // resuming with empty feeds: the same frames must come out, in order.
  wire::FrameReader held(256);
  const unsigned every = size > 1 ? 1u + data[1] % 3u : 1u;
  std::vector<std::string> again;
  auto on_frame_holding = [&](std::span<const std::uint8_t> body) {
    again.emplace_back(body.begin(), body.end());
    if (again.size() % every != 0) return true;
    held.hold();
    return false;
  };
  auto drain = [&] {
    bool fine = true;
    while (fine && held.holding() && again.size() < frames.size() + 1) {
      const std::size_t before = again.size();
      fine = held.feed({}, on_frame_holding);
      if (fine && again.size() == before) break;  // only an incomplete frame is left
    }
    return fine;
  };
  bool held_ok = held.feed(input.first(cut), on_frame_holding) && drain();
  if (held_ok) held_ok = held.feed(input.subspan(cut), on_frame_holding) && drain();
  if (held_ok != ok || again != frames) std::abort();
  return 0;
}
