// The courier's challenge-response MACs (courier_auth.hpp).
#include "courier_auth.hpp"

#include <cstdlib>
#include <span>

#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/token.hpp"

namespace slipway::channels::detail {
namespace {

// Domain separation: the courier's key is not the rendezvous's.
constexpr std::string_view kKeyLabel = "slipway courier authentication v1";

void put_u64(rendezvous::Sha256& hash, std::uint64_t v) {
  std::array<std::uint8_t, 8> bytes{};
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<std::uint8_t>(v >> (8 * i));
  hash.update(bytes);
}

wire::Mac to_mac(const rendezvous::Digest& digest) {
  wire::Mac mac{};
  static_assert(sizeof(mac) == sizeof(digest));
  std::copy(digest.begin(), digest.end(), mac.begin());
  return mac;
}

std::string process_secret() {
  static const std::string secret = rendezvous::generate_token();
  return secret;
}

}  // namespace

CourierAuth::CourierAuth(const std::string& secret)
    : key_(rendezvous::hmac_sha256(secret, kKeyLabel)) {}

CourierAuth CourierAuth::from(const std::string& secret) {
  if (!secret.empty()) return CourierAuth(secret);
  const char* token = std::getenv(core::env::kToken);
  if (token && *token) return CourierAuth(token);
  return CourierAuth(process_secret());
}

// Both MACs start alike: the direction, then the prover's id, the
// verifier's id and the connection.
rendezvous::Sha256 CourierAuth::begin(std::string_view direction, std::uint64_t prover,
                                      std::uint64_t verifier, std::uint64_t connection) const {
  auto hash = key_.begin();
  hash.update(direction);
  put_u64(hash, prover);
  put_u64(hash, verifier);
  put_u64(hash, connection);
  return hash;
}

wire::Mac CourierAuth::callee_mac(std::uint64_t callee, std::uint64_t caller,
                                  std::uint64_t connection, const wire::Nonce& caller_nonce,
                                  const wire::Nonce& callee_nonce) const {
  auto hash = begin("callee", callee, caller, connection);
  hash.update(caller_nonce);
  hash.update(callee_nonce);
  return to_mac(key_.finish(hash));
}

wire::Mac CourierAuth::caller_mac(std::uint64_t caller, std::uint64_t callee,
                                  std::uint64_t connection, const wire::Nonce& callee_nonce,
                                  const wire::Nonce& caller_nonce, ByteView caller_address) const {
  auto hash = begin("caller", caller, callee, connection);
  hash.update(callee_nonce);
  hash.update(caller_nonce);
  put_u64(hash, caller_address.size());
  hash.update(std::span(reinterpret_cast<const std::uint8_t*>(caller_address.data()),
                        caller_address.size()));
  return to_mac(key_.finish(hash));
}

bool CourierAuth::same(const wire::Mac& a, const wire::Mac& b) {
  return rendezvous::constant_time_equal(a, b);
}

wire::Nonce CourierAuth::nonce() {
  wire::Nonce nonce{};
  rendezvous::random_bytes(nonce);
  return nonce;
}

}  // namespace slipway::channels::detail
