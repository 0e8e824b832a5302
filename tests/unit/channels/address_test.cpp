// The UCX worker address check: real UCX 1.13 addresses (v1, v2, with debug
// names) pass; anything cut short, extended, of an unknown format version,
// or with fields UCX's lane selection or transports would trip on is
// refused with a reason. The hello codec around it, and the log escaping of
// peer-given text.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <random>

#include "address_fixtures.hpp"
#include "slipway/channels/error.hpp"
#include "slipway/channels/ucx/address.hpp"
#include "slipway/channels/wire.hpp"
#include "slipway/rendezvous/printable.hpp"

using namespace slipway::channels;
using namespace slipway::channels::testing;

namespace {

std::string problem_of(const Bytes& own, const Bytes& peer) {
  return ucx::AddressCheck(own).problem(peer);
}

}  // namespace

TEST_CASE("real UCX 1.13 worker addresses pass the check", "[channels][address]") {
  for (const auto& fixture : kAddressFixtures) {
    INFO(fixture.what);
    Bytes address = from_hex(fixture.hex);
    auto parsed = ucx::parse_worker_address(address);
    REQUIRE(parsed.layout);
    CHECK(parsed.error.empty());
    CHECK_FALSE(parsed.layout->entries.empty());
    CHECK(problem_of(address, address).empty());
  }
  auto v2 = ucx::parse_worker_address(from_hex(kAddressFixtures[3].hex));
  REQUIRE(v2.layout);
  CHECK(v2.layout->version == 1);
  CHECK(v2.layout->devices == 6);
  CHECK(v2.layout->entries.size() == 6);
}

TEST_CASE("every cut and every extension of a real address is refused",
          "[channels][address]") {
  for (const auto& fixture : kAddressFixtures) {
    INFO(fixture.what);
    const Bytes address = from_hex(fixture.hex);
    for (std::size_t size = 0; size < address.size(); ++size) {
      INFO("first " << size << " bytes");
      auto parsed = ucx::parse_worker_address(ByteView(address).first(size));
      CHECK_FALSE(parsed.layout);
      CHECK_FALSE(parsed.error.empty());
    }
    Bytes longer = address;
    longer.push_back(std::byte{0});
    auto parsed = ucx::parse_worker_address(longer);
    CHECK_FALSE(parsed.layout);
    CHECK_THAT(parsed.error, Catch::Contains("1 bytes follow the last device"));
  }
}

TEST_CASE("one random byte, or any unknown format version, is refused",
          "[channels][address]") {
  for (unsigned value = 0; value < 256; ++value) {
    INFO("byte " << value);
    Bytes one{static_cast<std::byte>(value)};
    CHECK_FALSE(ucx::parse_worker_address(one).layout);
  }
  Bytes address = from_hex(kTcpLoopbackV1);
  for (unsigned version = 2; version < 16; ++version) {
    address[0] = static_cast<std::byte>(0x20 | version);
    auto parsed = ucx::parse_worker_address(address);
    CHECK_FALSE(parsed.layout);
    CHECK_THAT(parsed.error, Catch::Contains("unknown UCX address format version " +
                                             std::to_string(version)));
  }
  CHECK_FALSE(ucx::parse_worker_address(Bytes{}).layout);
  CHECK_THAT(ucx::parse_worker_address(Bytes(ucx::kMaxWorkerAddressBytes + 1)).error,
             Catch::Contains("more than the 16384"));
}

TEST_CASE("fields UCX would trip on are refused", "[channels][address]") {
  const Bytes good = from_hex(kTcpLoopbackV1);
  // Layout of kTcpLoopbackV1: header 0x20 | worker id (8) | md byte | device
  // length byte 0x92 (last, 18 bytes) | device address (18) | transport
  // checksum (2) | attributes (16: overhead, bandwidth, latency, flags) |
  // interface length byte 0x82 (last, 2 bytes) | interface address (2).
  constexpr std::size_t kMd = 9, kDeviceLength = 10, kAttr = 31, kIfaceLength = 47;
  REQUIRE(good[kDeviceLength] == std::byte{0x92});
  REQUIRE(good[kIfaceLength] == std::byte{0x82});

  SECTION("no devices at all") {
    Bytes bad(good.begin(), good.begin() + kMd);
    bad.push_back(std::byte{0xff});
    CHECK_THAT(ucx::parse_worker_address(bad).error, Catch::Contains("lists no transports"));
  }
  SECTION("an endpoint address") {
    Bytes bad = good;
    bad[kIfaceLength] |= std::byte{0x40};
    CHECK_THAT(ucx::parse_worker_address(bad).error, Catch::Contains("endpoint addresses"));
  }
  SECTION("a memory domain UCX cannot index") {
    Bytes bad = from_hex(kAddressFixtures[3].hex);  // v2: md index 0x7f extends to the next byte
    auto parsed = ucx::parse_worker_address(bad);
    REQUIRE(parsed.layout);
    // v2: header (2) | worker id (8) | md byte.
    bad[10] = std::byte{0x7f};
    bad.insert(bad.begin() + 11, std::byte{200});
    CHECK_THAT(ucx::parse_worker_address(bad).error, Catch::Contains("memory domain index 200"));
  }
  SECTION("a device with zero paths") {
    Bytes bad = good;
    bad[kDeviceLength] |= std::byte{0x40};
    bad.insert(bad.begin() + kDeviceLength + 1, std::byte{0});
    CHECK_THAT(ucx::parse_worker_address(bad).error, Catch::Contains("0 paths"));
  }
  SECTION("a figure that is not a number, or a negative time") {
    for (std::size_t field : {std::size_t{0}, std::size_t{4}, std::size_t{8}}) {
      Bytes bad = good;
      const float nan = std::numeric_limits<float>::quiet_NaN();
      std::memcpy(bad.data() + kAttr + field, &nan, sizeof nan);
      CHECK_THAT(ucx::parse_worker_address(bad).error, Catch::Contains("out of range"));
    }
    Bytes bad = good;
    const float negative = -1e-6F;
    std::memcpy(bad.data() + kAttr, &negative, sizeof negative);
    CHECK_THAT(ucx::parse_worker_address(bad).error, Catch::Contains("overhead or latency"));
  }
  SECTION("an empty device address for a transport this side reads one for") {
    Bytes bad(good.begin(), good.begin() + kDeviceLength);
    bad.push_back(std::byte{0x80});  // last device, no device address
    bad.insert(bad.end(), good.begin() + kDeviceLength + 1 + 18, good.end());
    REQUIRE(ucx::parse_worker_address(bad).layout);
    CHECK_THAT(problem_of(good, bad), Catch::Contains("transport 0x19cf has an empty device"));
  }
  SECTION("an interface address of another length than this side's") {
    Bytes bad = good;
    bad[kIfaceLength] = std::byte{0x81};  // 1 byte
    bad.pop_back();
    REQUIRE(ucx::parse_worker_address(bad).layout);
    CHECK_THAT(problem_of(good, bad), Catch::Contains("interface address of 1 bytes"));
  }
}

TEST_CASE("random mutations of real addresses never pass unparsed",
          "[channels][address]") {
  std::mt19937 random(11);
  const Bytes own = from_hex(kAddressFixtures[2].hex);
  const ucx::AddressCheck check(own);
  for (const auto& fixture : kAddressFixtures) {
    const Bytes address = from_hex(fixture.hex);
    for (int round = 0; round < 2000; ++round) {
      Bytes mutated = address;
      const int edits = 1 + static_cast<int>(random() % 4);
      for (int e = 0; e < edits; ++e) {
        mutated[random() % mutated.size()] = static_cast<std::byte>(random() & 0xff);
      }
      // Whatever the check lets through parses, within its bounds.
      if (check.problem(mutated).empty()) {
        auto parsed = ucx::parse_worker_address(mutated);
        REQUIRE(parsed.layout);
        CHECK(parsed.layout->devices <= ucx::kMaxAddressDevices);
        CHECK(parsed.layout->entries.size() <= ucx::kMaxAddressTransports);
      }
    }
  }
}

TEST_CASE("an address this UCX's own does not parse stops the endpoint from starting",
          "[channels][address]") {
  try {
    ucx::AddressCheck check(Bytes{std::byte{0x5a}});
    FAIL("should have thrown");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::transport);
    CHECK_THAT(e.what(), Catch::Contains("UCX 1.13") && Catch::Contains("unknown UCX address"));
  }
}

TEST_CASE("hellos round-trip and malformed ones are refused", "[channels][wire]") {
  const Bytes address = from_hex(kTcpLoopbackV1);
  wire::Nonce nonce{};
  for (std::size_t i = 0; i < nonce.size(); ++i) nonce[i] = static_cast<std::uint8_t>(i + 1);
  Bytes encoded = wire::encode_hello("actor.3", nonce, address);
  auto decoded = wire::decode_hello(encoded);
  REQUIRE(decoded.hello);
  CHECK(decoded.hello->label == "actor.3");
  CHECK(decoded.hello->nonce == nonce);
  CHECK(Bytes(decoded.hello->address.begin(), decoded.hello->address.end()) == address);

  CHECK(wire::decode_hello(wire::encode_hello(std::string(300, 'x'), nonce, address)).hello->label.size() ==
        wire::kMaxLabelBytes);
  CHECK_THAT(wire::decode_hello(Bytes{}).error, Catch::Contains("without data"));
  CHECK_THAT(wire::decode_hello(Bytes{std::byte{5}, std::byte{'a'}}).error,
             Catch::Contains("ends inside its label"));
  CHECK_THAT(wire::decode_hello(Bytes{std::byte{1}, std::byte{'a'}, std::byte{0}}).error,
             Catch::Contains("without its nonce"));
  CHECK_THAT(wire::decode_hello(wire::encode_hello("a", nonce, {})).error,
             Catch::Contains("without the caller's address"));
  CHECK_THAT(wire::decode_hello(wire::encode_hello("a", nonce, Bytes(wire::kMaxAddressBytes + 1)))
                 .error,
             Catch::Contains("at most " + std::to_string(wire::kMaxAddressBytes)));
}

TEST_CASE("challenges and proofs decode only at their exact sizes", "[channels][wire]") {
  wire::Challenge challenge;
  challenge.nonce.fill(7);
  challenge.mac.fill(9);
  Bytes encoded = wire::encode_challenge(challenge);
  REQUIRE(encoded.size() == wire::kChallengeBytes);
  auto decoded = wire::decode_challenge(encoded);
  REQUIRE(decoded);
  CHECK(decoded->nonce == challenge.nonce);
  CHECK(decoded->mac == challenge.mac);
  encoded.pop_back();
  CHECK_FALSE(wire::decode_challenge(encoded));
  encoded.resize(wire::kChallengeBytes + 1);
  CHECK_FALSE(wire::decode_challenge(encoded));

  Bytes proof = wire::encode_proof(challenge.mac);
  REQUIRE(wire::decode_proof(proof));
  CHECK(*wire::decode_proof(proof) == challenge.mac);
  proof.push_back(std::byte{0});
  CHECK_FALSE(wire::decode_proof(proof));
  CHECK_FALSE(wire::decode_proof(Bytes{}));
}

TEST_CASE("peer-given text is escaped for the log", "[channels][wire]") {
  CHECK(slipway::rendezvous::printable("actor.0") == "actor.0");
  CHECK(slipway::rendezvous::printable("a\nb\\c\x1b[31m\xff") == "a\\nb\\\\c\\x1b[31m\\xff");
}
