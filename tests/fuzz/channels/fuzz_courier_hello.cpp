// libFuzzer target for a hello's data (wire::decode_hello) and the UCX
// worker address check applied to the caller's address before UCX sees it
// (ucx::parse_worker_address, ucx::AddressCheck against a real UCX 1.13
// address). Properties: no crash or out-of-bounds read (ASan/UBSan); every
// refusal says why; an accepted hello re-encodes to the same bytes; an
// address the check passes stays within the bounds UCX can index.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../../unit/channels/address_fixtures.hpp"
#include "slipway/channels/ucx/address.hpp"
#include "slipway/channels/wire.hpp"

using namespace slipway::channels;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ucx::AddressCheck check(testing::from_hex(testing::kAddressFixtures[2].hex));
  const ByteView input(reinterpret_cast<const std::byte*>(data), size);
  auto decoded = wire::decode_hello(input);
  if (!decoded.hello) {
    if (decoded.error.empty()) std::abort();
    return 0;
  }
  const Bytes again = wire::encode_hello(decoded.hello->label, decoded.hello->nonce, decoded.hello->address);
  if (again.size() != size || std::memcmp(again.data(), data, size) != 0) std::abort();
  const ByteView address = decoded.hello->address;
  auto parsed = ucx::parse_worker_address(address);
  const std::string problem = check.problem(address);
  if (!parsed.layout) {
    if (parsed.error.empty() || problem.empty()) std::abort();
    return 0;
  }
  if (parsed.layout->devices > ucx::kMaxAddressDevices ||
      parsed.layout->entries.size() > ucx::kMaxAddressTransports) {
    std::abort();
  }
  return 0;
}
