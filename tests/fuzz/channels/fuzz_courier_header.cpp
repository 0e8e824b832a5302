// libFuzzer target for the courier message header (wire::decode: what every
// call, reply and hello frame starts with). Properties checked on every
// input: decoding never crashes or reads out of bounds (ASan/UBSan); a
// refusal says why; whatever decodes re-encodes to exactly the same bytes.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "slipway/channels/wire.hpp"

using namespace slipway::channels;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteView input(reinterpret_cast<const std::byte*>(data), size);
  auto decoded = wire::decode(input);
  if (!decoded.header) {
    if (decoded.error.empty()) std::abort();
    return 0;
  }
  const wire::Encoded again = wire::encode(*decoded.header);
  if (again.size != size || std::memcmp(again.bytes.data(), data, size) != 0) std::abort();
  if (decoded.header->method.size() > wire::kMaxMethodBytes) std::abort();
  return 0;
}
