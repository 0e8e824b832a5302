// The program's secret: generation, hex encoding, and the environment names
// through which the launcher hands the rendezvous endpoint and secret to tasks.
//
// Contract: the secret is a string of 64 hex digits (32 random bytes from the
// kernel's CSPRNG). It is never logged: use redact() when a message must
// mention it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace slipway::rendezvous {

// Fills `out` from getrandom(2). Throws std::system_error when the kernel
// cannot provide randomness.
void random_bytes(std::span<std::uint8_t> out);

// Hex of 32 random bytes.
std::string generate_token();

std::string to_hex(std::span<const std::uint8_t> bytes);

// "<redacted, N chars>": what logs show in place of a secret.
std::string redact(std::string_view secret);

}  // namespace slipway::rendezvous
