// The two MACs of the handshake. The client's covers the server's nonce (no
// replay), its own nonce, its role and its identity (no tampering); the
// server's covers both nonces under a different label (no reflection).
#include "slipway/rendezvous/wire.hpp"
#include "wire_io.hpp"

namespace slipway::rendezvous::wire {

Digest client_mac(const HmacKey& key, const Nonce& server_nonce, const Hello& hello,
                  std::uint32_t channel) {
  std::string covered;
  covered.reserve(128 + hello.identity.node.size() + hello.identity.host.size());
  detail::Writer w(covered, false);
  w.str("slipway-rdzv/1 client");
  w.raw(server_nonce);
  w.raw(hello.client_nonce);
  w.u16(hello.version);
  w.u8(static_cast<std::uint8_t>(hello.role));
  w.str(hello.identity.node);
  w.u32(hello.identity.replica);
  w.u32(hello.identity.attempt);
  w.str(hello.identity.host);
  w.i64(hello.identity.pid);
  if (channel != 0) w.u32(channel);
  return key.mac(covered);
}

Digest server_mac(const HmacKey& key, const Nonce& server_nonce, const Nonce& client_nonce) {
  Sha256 h = key.begin();
  h.update("slipway-rdzv/1 server");
  h.update(server_nonce);
  h.update(client_nonce);
  return key.finish(h);
}

}  // namespace slipway::rendezvous::wire
