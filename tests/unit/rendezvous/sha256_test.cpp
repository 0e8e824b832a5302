// SHA-256 against FIPS 180-4 examples, HMAC-SHA256 against RFC 4231, and the
// constant-time comparison.
#include <catch2/catch.hpp>

#include <string>

#include "slipway/rendezvous/sha256.hpp"
#include "slipway/rendezvous/token.hpp"

using namespace slipway::rendezvous;

namespace {
std::string hex(const Digest& d) { return to_hex(d); }
std::string unhex(std::string_view h) {
  std::string out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  }
  return out;
}
}  // namespace

TEST_CASE("sha256 matches the FIPS 180-4 examples", "[rendezvous][sha256]") {
  CHECK(hex(sha256("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex(sha256("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::string million(1000000, 'a');
  CHECK(hex(sha256(million)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 is the same however the input is split", "[rendezvous][sha256]") {
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>(i * 7));
  const Digest whole = sha256(data);
  for (std::size_t step : {1u, 3u, 63u, 64u, 65u, 127u}) {
    Sha256 h;
    for (std::size_t pos = 0; pos < data.size(); pos += step) {
      h.update(std::string_view(data).substr(pos, step));
    }
    CHECK(h.finish() == whole);
  }
}

TEST_CASE("hmac-sha256 matches RFC 4231", "[rendezvous][hmac]") {
  // Test case 1
  CHECK(hex(hmac_sha256(std::string(20, '\x0b'), "Hi There")) ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  // Test case 2
  CHECK(hex(hmac_sha256("Jefe", "what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // Test case 3
  CHECK(hex(hmac_sha256(std::string(20, '\xaa'), std::string(50, '\xdd'))) ==
        "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
  // Test case 4
  CHECK(hex(hmac_sha256(unhex("0102030405060708090a0b0c0d0e0f10111213141516171819"),
                        std::string(50, '\xcd'))) ==
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
  // Test case 6: key longer than a block
  CHECK(hex(hmac_sha256(std::string(131, '\xaa'),
                        "Test Using Larger Than Block-Size Key - Hash Key First")) ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  // Test case 7
  CHECK(hex(hmac_sha256(std::string(131, '\xaa'),
                        "This is a test using a larger than block-size key and a larger than "
                        "block-size data. The key needs to be hashed before being used by the "
                        "HMAC algorithm.")) ==
        "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

TEST_CASE("a precomputed HMAC key gives the same MAC each time", "[rendezvous][hmac]") {
  const HmacKey key("Jefe");
  CHECK(hex(key.mac("what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  Sha256 h = key.begin();
  h.update("what do ya ");
  h.update("want for nothing?");
  CHECK(hex(key.finish(h)) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST_CASE("constant_time_equal compares contents and lengths", "[rendezvous][hmac]") {
  const Digest a = sha256("a");
  Digest b = a;
  CHECK(constant_time_equal(a, b));
  b[31] ^= 1;
  CHECK_FALSE(constant_time_equal(a, b));
  CHECK_FALSE(constant_time_equal(std::span(a).first(31), a));
}

TEST_CASE("generate_token gives 64 distinct hex digits", "[rendezvous][token]") {
  const std::string t1 = generate_token();
  const std::string t2 = generate_token();
  CHECK(t1.size() == 64);
  CHECK(t1.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(t1 != t2);
  CHECK(redact(t1).find(t1) == std::string::npos);
}
