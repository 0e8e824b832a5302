// Encoding and bounded decoding of the courier message header and of a
// hello's data.
#include "slipway/channels/wire.hpp"

#include <stdexcept>

#include "little_endian.hpp"

namespace slipway::channels::wire {
namespace {

using detail::get_le;
using detail::put_le;

Decoded reject(std::string why) { return Decoded{std::nullopt, std::move(why)}; }

// Copies exactly out.size() bytes of `in` (the caller checked its size).
template <std::size_t N>
void copy_into(ByteView in, std::array<std::uint8_t, N>& out) {
  for (std::size_t i = 0; i < N; ++i) out[i] = std::to_integer<std::uint8_t>(in[i]);
}

}  // namespace

bool valid_kind(std::uint8_t kind) { return kind >= 1 && kind <= 9; }

bool to_callee(Kind kind) {
  return kind == Kind::hello || kind == Kind::proof || kind == Kind::call ||
         kind == Kind::oneway || kind == Kind::goodbye;
}

bool valid_remote_status(std::uint8_t status) { return status >= 1 && status <= 5; }

Encoded encode(const Header& header) {
  if (header.method.size() > kMaxMethodBytes) {
    throw std::length_error("method name of " + std::to_string(header.method.size()) +
                            " bytes exceeds the limit of " + std::to_string(kMaxMethodBytes));
  }
  Encoded out;
  std::byte* p = out.bytes.data();
  put_le(p, kMagic, 2);
  p[2] = static_cast<std::byte>(kVersion);
  p[3] = static_cast<std::byte>(header.kind);
  p[4] = static_cast<std::byte>(header.status);
  p[5] = std::byte{0};
  put_le(p + 6, header.method.size(), 2);
  put_le(p + 8, header.sender, 8);
  put_le(p + 16, header.call_id, 8);
  for (std::size_t i = 0; i < header.method.size(); ++i) {
    p[kFixedBytes + i] = static_cast<std::byte>(header.method[i]);
  }
  out.size = kFixedBytes + header.method.size();
  return out;
}

Decoded decode(ByteView bytes) {
  if (bytes.size() < kFixedBytes) {
    return reject("header of " + std::to_string(bytes.size()) + " bytes is shorter than " +
                  std::to_string(kFixedBytes));
  }
  const std::byte* p = bytes.data();
  if (get_le(p, 2) != kMagic) return reject("not a courier message (bad magic)");
  auto version = std::to_integer<std::uint8_t>(p[2]);
  if (version != kVersion) {
    return reject("courier wire version " + std::to_string(version) + " (this side speaks " +
                  std::to_string(kVersion) + "); run the same slipway on both sides");
  }
  auto kind = std::to_integer<std::uint8_t>(p[3]);
  if (!valid_kind(kind)) return reject("unknown message kind " + std::to_string(kind));
  if (p[5] != std::byte{0}) return reject("reserved header byte is not zero");
  std::size_t method_len = static_cast<std::size_t>(get_le(p + 6, 2));
  if (method_len > kMaxMethodBytes) {
    return reject("method name length " + std::to_string(method_len) + " exceeds " +
                  std::to_string(kMaxMethodBytes));
  }
  if (bytes.size() != kFixedBytes + method_len) {
    return reject("header length " + std::to_string(bytes.size()) + " does not match its method "
                  "name length " + std::to_string(method_len));
  }
  Header h;
  h.kind = static_cast<Kind>(kind);
  h.status = std::to_integer<std::uint8_t>(p[4]);
  h.sender = get_le(p + 8, 8);
  h.call_id = get_le(p + 16, 8);
  h.method.assign(reinterpret_cast<const char*>(p + kFixedBytes), method_len);
  bool needs_method = h.kind == Kind::call || h.kind == Kind::oneway;
  if (needs_method && h.method.empty()) return reject("a call without a method name");
  if (!needs_method && !h.method.empty()) return reject("a method name on a non-call message");
  if (h.kind == Kind::reply_error && !valid_remote_status(h.status)) {
    return reject("unknown error status " + std::to_string(h.status));
  }
  if (h.kind != Kind::reply_error && h.status != 0) {
    return reject("a status on a message that is not an error reply");
  }
  return Decoded{std::move(h), {}};
}

Bytes encode_hello(std::string_view label, const Nonce& nonce, ByteView address) {
  label = label.substr(0, kMaxLabelBytes);
  Bytes out;
  out.reserve(1 + label.size() + kNonceBytes + address.size());
  out.push_back(static_cast<std::byte>(label.size()));
  for (char c : label) out.push_back(static_cast<std::byte>(c));
  for (auto b : nonce) out.push_back(static_cast<std::byte>(b));
  out.insert(out.end(), address.begin(), address.end());
  return out;
}

DecodedHello decode_hello(ByteView data) {
  auto refuse = [](std::string why) { return DecodedHello{std::nullopt, std::move(why)}; };
  if (data.empty()) return refuse("a hello without data");
  const std::size_t label_bytes = std::to_integer<std::size_t>(data[0]);
  if (data.size() < 1 + label_bytes) return refuse("a hello that ends inside its label");
  if (data.size() < 1 + label_bytes + kNonceBytes) return refuse("a hello without its nonce");
  ByteView address = data.subspan(1 + label_bytes + kNonceBytes);
  if (address.empty()) return refuse("a hello without the caller's address");
  if (address.size() > kMaxAddressBytes) {
    return refuse("a hello whose address has " + std::to_string(address.size()) +
                  " bytes (at most " + std::to_string(kMaxAddressBytes) + ")");
  }
  Hello hello;
  hello.label = to_string(data.subspan(1, label_bytes));
  copy_into(data.subspan(1 + label_bytes, kNonceBytes), hello.nonce);
  hello.address = address;
  return DecodedHello{std::move(hello), {}};
}

Bytes encode_challenge(const Challenge& challenge) {
  Bytes out;
  out.reserve(kChallengeBytes);
  for (auto b : challenge.nonce) out.push_back(static_cast<std::byte>(b));
  for (auto b : challenge.mac) out.push_back(static_cast<std::byte>(b));
  return out;
}

std::optional<Challenge> decode_challenge(ByteView data) {
  if (data.size() != kChallengeBytes) return std::nullopt;
  Challenge challenge;
  copy_into(data.first(kNonceBytes), challenge.nonce);
  copy_into(data.subspan(kNonceBytes), challenge.mac);
  return challenge;
}

Bytes encode_proof(const Mac& mac) {
  Bytes out;
  out.reserve(kMacBytes);
  for (auto b : mac) out.push_back(static_cast<std::byte>(b));
  return out;
}

std::optional<Mac> decode_proof(ByteView data) {
  if (data.size() != kMacBytes) return std::nullopt;
  Mac mac;
  copy_into(data, mac);
  return mac;
}

}  // namespace slipway::channels::wire
