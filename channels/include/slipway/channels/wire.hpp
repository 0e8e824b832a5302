// The courier wire format: the active-message header of every courier
// message (docs/channels.md, "Wire format"). Payloads travel as the active
// message's data, so large ones take UCX's rendezvous protocol.
//
// Header layout, little-endian, 24 bytes then the method name:
//   u16 magic 0x5357 ("SW") | u8 version | u8 kind | u8 status | u8 0 |
//   u16 method length | u64 sender endpoint id | u64 call id | method bytes
//
// A hello's data (the caller's connection to the callee starts with it):
//   u8 label length | label | 16-byte caller nonce | the caller's courier address
// A challenge's data (the callee's answer to a hello, on its connection back):
//   16-byte callee nonce | 32-byte callee MAC
// A proof's data (the caller's answer to a challenge): 32-byte caller MAC
// (docs/channels.md, "Who may call": the MACs are computed by auth.hpp)
//
// Contract: decode() accepts exactly what encode() produces and rejects
// anything else with a reason, never reading past `bytes` and never
// allocating more than kMaxMethodBytes for the method name. decode_hello()
// likewise for encode_hello(), with the address at most kMaxAddressBytes
// (the address itself is parsed when the callee connects back); decode_challenge() and
// decode_proof() accept exactly their fixed sizes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "slipway/channels/bytes.hpp"
#include "slipway/channels/ucx/address.hpp"

namespace slipway::channels::wire {

inline constexpr std::uint16_t kMagic = 0x5357;
// 2: hellos are answered by a challenge; 3: addresses are courier addresses
// (UCX shared memory and the courier's own TCP)
inline constexpr std::uint8_t kVersion = 3;
inline constexpr std::size_t kFixedBytes = 24;
inline constexpr std::size_t kMaxMethodBytes = 255;
inline constexpr std::size_t kMaxHeaderBytes = kFixedBytes + kMaxMethodBytes;

// Active-message ids on a courier worker.
inline constexpr unsigned kRequestAm = 0x5301;  // hello, proof, call, oneway, goodbye: to the callee
inline constexpr unsigned kReplyAm = 0x5302;    // challenge, reply_ok, reply_error, leaving: to the caller

// hello, challenge, proof, goodbye and leaving carry the caller's
// connection number in call_id (so a callee that leaves tells exactly the
// connections it served, and a challenge names the hello it answers).
enum class Kind : std::uint8_t {
  hello = 1,        // data: label length, label, nonce, the caller's courier address (the callee connects back)
  call = 2,         // data: the request; a reply follows
  oneway = 3,       // data: the request; no reply
  reply_ok = 4,     // data: the result
  reply_error = 5,  // status: a RemoteStatus; data: the callee's message
  goodbye = 6,      // the caller drops this connection
  leaving = 7,      // the callee is closing: calls in flight on this connection are lost
  challenge = 8,    // data: the callee's nonce and MAC, answering a hello
  proof = 9,        // data: the caller's MAC over both nonces; admits the caller
};

// Whether a kind travels to the callee (kRequestAm) rather than to the caller.
bool to_callee(Kind kind);

// Why a callee refused or failed a call (reply_error's status byte).
enum class RemoteStatus : std::uint8_t {
  handler_failed = 1,
  no_such_method = 2,
  message_too_large = 3,
  overloaded = 4,
  bad_request = 5,
};

struct Header {
  Kind kind = Kind::call;
  std::uint8_t status = 0;
  std::uint64_t sender = 0;
  std::uint64_t call_id = 0;
  std::string method;
};

struct Encoded {
  std::array<std::byte, kMaxHeaderBytes> bytes{};
  std::size_t size = 0;
  ByteView view() const { return ByteView(bytes.data(), size); }
};

// Throws std::length_error when the method name exceeds kMaxMethodBytes.
Encoded encode(const Header& header);

struct Decoded {
  std::optional<Header> header;
  std::string error;  // set iff !header
};

Decoded decode(ByteView bytes);

inline constexpr std::size_t kMaxLabelBytes = 255;


inline constexpr std::size_t kNonceBytes = 16;
inline constexpr std::size_t kMacBytes = 32;
using Nonce = std::array<std::uint8_t, kNonceBytes>;
using Mac = std::array<std::uint8_t, kMacBytes>;
// A courier address: a UCX worker address and how to reach the TCP transport.
inline constexpr std::size_t kMaxAddressBytes = ucx::kMaxWorkerAddressBytes + 256;
inline constexpr std::size_t kMaxHelloBytes = 1 + kMaxLabelBytes + kNonceBytes + kMaxAddressBytes;

struct Hello {
  std::string label;  // the caller's name, for messages
  Nonce nonce{};      // the caller's fresh nonce
  ByteView address;   // into the decoded bytes
};

struct DecodedHello {
  std::optional<Hello> hello;
  std::string error;  // set iff !hello
};

// `label` is cut to kMaxLabelBytes.
Bytes encode_hello(std::string_view label, const Nonce& nonce, ByteView address);
DecodedHello decode_hello(ByteView data);

inline constexpr std::size_t kChallengeBytes = kNonceBytes + kMacBytes;
struct Challenge {
  Nonce nonce{};
  Mac mac{};
};
Bytes encode_challenge(const Challenge& challenge);
std::optional<Challenge> decode_challenge(ByteView data);  // nullopt unless exactly kChallengeBytes

Bytes encode_proof(const Mac& mac);
std::optional<Mac> decode_proof(ByteView data);  // nullopt unless exactly kMacBytes

bool valid_kind(std::uint8_t kind);
bool valid_remote_status(std::uint8_t status);

}  // namespace slipway::channels::wire
