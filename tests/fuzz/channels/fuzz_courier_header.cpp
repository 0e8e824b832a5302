// libFuzzer target for the courier message header (wire::decode: what every
// call, reply and hello frame starts with). Properties checked on every
// input: decoding never crashes or reads out of bounds (ASan/UBSan); a
// refusal says why; whatever decodes re-encodes to exactly the same bytes.
// The same input is also read as a challenge's and a proof's data (what a
// peer sends before it is admitted): accepted only at their exact sizes, and
// re-encoded to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "slipway/channels/wire.hpp"

using namespace slipway::channels;

namespace {

void check_handshake_data(ByteView input) {
  if (auto challenge = wire::decode_challenge(input)) {
    if (input.size() != wire::kChallengeBytes || wire::encode_challenge(*challenge) != Bytes(input.begin(), input.end())) std::abort();
  } else if (input.size() == wire::kChallengeBytes) {
    std::abort();
  }
  if (auto proof = wire::decode_proof(input)) {
    if (input.size() != wire::kMacBytes || wire::encode_proof(*proof) != Bytes(input.begin(), input.end())) std::abort();
  } else if (input.size() == wire::kMacBytes) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteView input(reinterpret_cast<const std::byte*>(data), size);
  check_handshake_data(input);
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
