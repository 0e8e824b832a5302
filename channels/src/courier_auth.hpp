// Who may call a courier endpoint: the program's secret, and the MACs of
// the challenge-response that admits a caller (docs/channels.md, "Who may
// call"). Pure computation, no I/O.
//
// A caller's hello carries a fresh caller nonce; the callee answers on its
// connection back with a fresh callee nonce and a MAC proving it knows the
// secret; the caller answers with a MAC over both nonces, both endpoint ids,
// the connection number and its worker address. Each MAC is keyed by a key
// derived from the secret and labelled by direction, so neither can be
// reflected, and each covers a nonce the verifier chose, so none can be
// replayed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "slipway/channels/bytes.hpp"
#include "slipway/channels/wire.hpp"
#include "slipway/rendezvous/sha256.hpp"

namespace slipway::channels::detail {

class CourierAuth {
 public:
  // The secret: `secret` when not empty, else SLIPWAY_TOKEN, else a random
  // secret of this process (its endpoints then admit only each other).
  static CourierAuth from(const std::string& secret);

  // What the callee sends in its challenge.
  wire::Mac callee_mac(std::uint64_t callee, std::uint64_t caller, std::uint64_t connection,
                       const wire::Nonce& caller_nonce, const wire::Nonce& callee_nonce) const;
  // What the caller sends as its proof.
  wire::Mac caller_mac(std::uint64_t caller, std::uint64_t callee, std::uint64_t connection,
                       const wire::Nonce& callee_nonce, const wire::Nonce& caller_nonce,
                       ByteView caller_address) const;
  // Constant-time comparison.
  static bool same(const wire::Mac& a, const wire::Mac& b);
  // A fresh nonce from the kernel's CSPRNG.
  static wire::Nonce nonce();

 private:
  explicit CourierAuth(const std::string& secret);
  rendezvous::Sha256 begin(std::string_view direction, std::uint64_t prover,
                           std::uint64_t verifier, std::uint64_t connection) const;
  rendezvous::HmacKey key_;
};

}  // namespace slipway::channels::detail
