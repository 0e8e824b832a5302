// Writes the channels fuzzers' starting corpus into the directory given as
// argv[1]: courier headers of every kind (seed-header-*), hellos carrying
// real UCX 1.13 worker addresses (seed-hello-*), and TCP frame streams (a
// hello with a courier address, then a call: seed-stream-*).
#include <cstdio>
#include <string>
#include <vector>

#include "../../unit/channels/address_fixtures.hpp"
#include "courier_address.hpp"
#include "slipway/channels/wire.hpp"
#include "tcp_frame.hpp"

using namespace slipway::channels;

namespace {

bool write(const std::string& path, ByteView bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  return std::fclose(f) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  const std::vector<wire::Header> headers = {
      {wire::Kind::hello, 0, 1, 2, {}},
      {wire::Kind::call, 0, 1, 3, "get_weights"},
      {wire::Kind::oneway, 0, 1, 4, "log"},
      {wire::Kind::reply_ok, 0, 5, 3, {}},
      {wire::Kind::reply_error, 4, 5, 3, {}},
      {wire::Kind::goodbye, 0, 1, 2, {}},
      {wire::Kind::leaving, 0, 5, 2, {}},
  };
  for (std::size_t i = 0; i < headers.size(); ++i) {
    if (!write(dir + "/seed-header-" + std::to_string(i), wire::encode(headers[i]).view())) return 1;
  }
  std::size_t i = 0;
  for (const auto& fixture : testing::kAddressFixtures) {
    Bytes hello = wire::encode_hello("actor.0", wire::Nonce{}, testing::from_hex(fixture.hex));
    if (!write(dir + "/seed-hello-" + std::to_string(i), hello)) return 1;
    detail::CourierAddress address;
    address.host_key = "boot/net:1";
    address.tcp_address = "10.0.0.7";
    address.tcp_port = 40000;
    address.ucx = testing::from_hex(fixture.hex);
    Bytes stream;
    auto frame = [&](const wire::Header& header, const Bytes& payload) {
      const wire::Encoded encoded = wire::encode(header);
      auto prefix = detail::encode_frame_prefix(
          detail::FramePrefix{wire::kRequestAm, encoded.size, payload.size()});
      stream.insert(stream.end(), prefix.begin(), prefix.end());
      stream.insert(stream.end(), encoded.bytes.begin(), encoded.bytes.begin() + encoded.size);
      stream.insert(stream.end(), payload.begin(), payload.end());
    };
    frame(headers[0], wire::encode_hello("actor.0", wire::Nonce{},
                                         detail::encode_courier_address(address)));
    frame(headers[1], Bytes(16, std::byte{1}));
    if (!write(dir + "/seed-stream-" + std::to_string(i++), stream)) return 1;
  }
  return 0;
}
