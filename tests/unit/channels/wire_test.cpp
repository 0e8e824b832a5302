// The courier header: what encode() writes decodes back, and decode()
// refuses everything malformed without reading past the bytes given.
#include <catch2/catch.hpp>

#include <random>

#include "slipway/channels/wire.hpp"

using namespace slipway::channels;
using namespace slipway::channels::wire;

namespace {

Bytes bytes_of(const Encoded& e) { return Bytes(e.bytes.begin(), e.bytes.begin() + e.size); }

}  // namespace

TEST_CASE("every kind of header round-trips", "[channels][wire]") {
  Header call{Kind::call, 0, 0x0123456789abcdefULL, 42, "get_weights"};
  auto decoded = decode(encode(call).view());
  REQUIRE(decoded.header);
  CHECK(decoded.header->kind == Kind::call);
  CHECK(decoded.header->sender == 0x0123456789abcdefULL);
  CHECK(decoded.header->call_id == 42);
  CHECK(decoded.header->method == "get_weights");

  for (Kind kind : {Kind::hello, Kind::reply_ok, Kind::goodbye, Kind::leaving}) {
    auto d = decode(encode(Header{kind, 0, 7, 9, {}}).view());
    REQUIRE(d.header);
    CHECK(d.header->kind == kind);
    CHECK(d.header->method.empty());
  }
  auto error = decode(encode(Header{Kind::reply_error,
                                    static_cast<std::uint8_t>(RemoteStatus::overloaded), 1, 2, {}})
                          .view());
  REQUIRE(error.header);
  CHECK(error.header->status == static_cast<std::uint8_t>(RemoteStatus::overloaded));

  std::string longest(kMaxMethodBytes, 'm');
  auto d = decode(encode(Header{Kind::oneway, 0, 1, 2, longest}).view());
  REQUIRE(d.header);
  CHECK(d.header->method == longest);
  CHECK(encode(Header{Kind::oneway, 0, 1, 2, longest}).size == kMaxHeaderBytes);
}

TEST_CASE("the layout is little-endian and fixed", "[channels][wire]") {
  auto e = encode(Header{Kind::call, 0, 0x1122334455667788ULL, 0x01, "ab"});
  Bytes b = bytes_of(e);
  REQUIRE(b.size() == kFixedBytes + 2);
  CHECK(b[0] == std::byte{0x57});  // magic 0x5357, low byte first
  CHECK(b[1] == std::byte{0x53});
  CHECK(b[2] == std::byte{kVersion});
  CHECK(b[3] == std::byte{2});     // call
  CHECK(b[6] == std::byte{2});     // method length
  CHECK(b[8] == std::byte{0x88});  // sender, low byte first
  CHECK(b[15] == std::byte{0x11});
  CHECK(b[16] == std::byte{0x01});  // call id
  CHECK(b[24] == std::byte{'a'});
}

TEST_CASE("malformed headers are refused with a reason", "[channels][wire]") {
  Bytes good = bytes_of(encode(Header{Kind::call, 0, 1, 2, "m"}));
  auto refused = [](Bytes b) {
    auto d = decode(ByteView(b));
    CHECK_FALSE(d.header);
    return d.error;
  };
  CHECK_THAT(refused(Bytes(good.begin(), good.begin() + 23)), Catch::Contains("shorter"));
  Bytes bad = good;
  bad[0] = std::byte{0};
  CHECK_THAT(refused(bad), Catch::Contains("magic"));
  bad = good;
  bad[2] = std::byte{9};
  CHECK_THAT(refused(bad), Catch::Contains("version 9"));
  bad = good;
  bad[3] = std::byte{0};
  CHECK_THAT(refused(bad), Catch::Contains("kind"));
  bad = good;
  bad[3] = std::byte{10};
  CHECK_THAT(refused(bad), Catch::Contains("kind 10"));
  bad = good;
  bad[5] = std::byte{1};
  CHECK_THAT(refused(bad), Catch::Contains("reserved"));
  bad = good;
  bad[4] = std::byte{1};
  CHECK_THAT(refused(bad), Catch::Contains("not an error reply"));
  bad = good;
  bad[6] = std::byte{0xff};
  bad[7] = std::byte{0xff};  // 65535: beyond the bound, before any allocation
  CHECK_THAT(refused(bad), Catch::Contains("exceeds 255"));
  bad = good;
  bad[6] = std::byte{5};  // claims more bytes than there are
  CHECK_THAT(refused(bad), Catch::Contains("does not match"));
  bad = good;
  bad.push_back(std::byte{'x'});  // trailing bytes
  CHECK_THAT(refused(bad), Catch::Contains("does not match"));
  CHECK_THAT(refused(bytes_of(encode(Header{Kind::call, 0, 1, 2, ""}))),
             Catch::Contains("without a method"));
  CHECK_THAT(refused(bytes_of(encode(Header{Kind::reply_ok, 0, 1, 2, "m"}))),
             Catch::Contains("non-call"));
  CHECK_THAT(refused(bytes_of(encode(Header{Kind::reply_error, 0, 1, 2, {}}))),
             Catch::Contains("error status 0"));
  CHECK_THROWS_AS(encode(Header{Kind::call, 0, 1, 2, std::string(kMaxMethodBytes + 1, 'm')}),
                  std::length_error);
}

TEST_CASE("random bytes never pass for a header they are not", "[channels][wire]") {
  std::mt19937 rng(7);
  Bytes good = bytes_of(encode(Header{Kind::call, 0, 1, 2, "method"}));
  for (int i = 0; i < 20000; ++i) {
    Bytes b = good;
    // Flip one to three bytes, sometimes truncate or extend.
    for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; ++k) {
      b[rng() % b.size()] = static_cast<std::byte>(rng());
    }
    if (rng() % 4 == 0) b.resize(rng() % (b.size() + 8));
    auto d = decode(ByteView(b));
    if (d.header) {
      // Whatever is accepted re-encodes to exactly the same bytes.
      CHECK(bytes_of(encode(*d.header)) == b);
    } else {
      CHECK_FALSE(d.error.empty());
    }
  }
}
