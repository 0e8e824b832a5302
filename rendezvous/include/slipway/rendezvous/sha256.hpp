// SHA-256 (FIPS 180-4), HMAC-SHA256 (RFC 2104) and constant-time comparison:
// the primitives of the rendezvous challenge-response authentication.
//
// Contract: pure functions, no allocation beyond the returned values; the
// HmacKey precomputes the inner and outer pads once so each MAC costs only the
// message's compression rounds plus two blocks.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace slipway::rendezvous {

using Digest = std::array<std::uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  void update(std::span<const std::uint8_t> data);
  void update(std::string_view data);
  // Finishes the hash; the object must not be updated afterwards.
  Digest finish();

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

Digest sha256(std::span<const std::uint8_t> data);
Digest sha256(std::string_view data);

// An HMAC-SHA256 key with its pads absorbed. Copyable; holds key material, so
// it wipes itself on destruction.
class HmacKey {
 public:
  explicit HmacKey(std::span<const std::uint8_t> key);
  explicit HmacKey(std::string_view key);
  ~HmacKey();
  HmacKey(const HmacKey&) = default;
  HmacKey& operator=(const HmacKey&) = default;

  // Starts a MAC: update the returned hash with the message, then pass it to
  // finish().
  Sha256 begin() const { return inner_; }
  Digest finish(Sha256& inner) const;
  Digest mac(std::span<const std::uint8_t> message) const;
  Digest mac(std::string_view message) const;

 private:
  Sha256 inner_;
  Sha256 outer_;
};

Digest hmac_sha256(std::string_view key, std::string_view message);

// Compares in time that depends only on the lengths, never on the contents.
bool constant_time_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b);

}  // namespace slipway::rendezvous
