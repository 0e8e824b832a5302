// Typed codecs: values round-trip, and bytes that cannot be a value are
// refused as a protocol error.
#include <catch2/catch.hpp>

#include <cstdint>

#include "slipway/channels/typed.hpp"

using namespace slipway::channels;

namespace {
struct Step {
  std::int64_t version;
  double loss;
};
}  // namespace

TEST_CASE("typed values round-trip through their codecs", "[channels][typed]") {
  CHECK(Codec<std::string>::decode(Codec<std::string>::encode("weights")) == "weights");
  CHECK(Codec<std::int32_t>::decode(Codec<std::int32_t>::encode(-7)) == -7);
  Step step{12, 0.25};
  Step back = Codec<Step>::decode(Codec<Step>::encode(step));
  CHECK(back.version == 12);
  CHECK(back.loss == 0.25);
  std::vector<float> weights{1.5f, -2.0f, 3.25f};
  CHECK(Codec<std::vector<float>>::decode(Codec<std::vector<float>>::encode(weights)) == weights);
  CHECK(Codec<std::vector<float>>::decode(ByteView()).empty());
  Bytes raw = to_bytes("raw");
  CHECK(Codec<Bytes>::decode(Codec<Bytes>::encode(raw)) == raw);
}

TEST_CASE("bytes of the wrong size are refused", "[channels][typed]") {
  try {
    Codec<std::int64_t>::decode(ByteView(to_bytes("abc")));
    FAIL("should have thrown");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::protocol);
    CHECK_THAT(e.what(), Catch::Contains("expected 8 bytes") && Catch::Contains("got 3"));
  }
  try {
    Codec<std::vector<double>>::decode(ByteView(Bytes(12)));
    FAIL("should have thrown");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::protocol);
    CHECK_THAT(e.what(), Catch::Contains("12 bytes are not a whole number"));
  }
}
