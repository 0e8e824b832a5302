// Writes the channels fuzzers' starting corpus into the directory given as
// argv[1]: courier headers of every kind (seed-header-*), and hellos carrying
// real UCX 1.13 worker addresses (seed-hello-*).
#include <cstdio>
#include <string>
#include <vector>

#include "../../unit/channels/address_fixtures.hpp"
#include "slipway/channels/wire.hpp"

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
    if (!write(dir + "/seed-hello-" + std::to_string(i++), hello)) return 1;
  }
  return 0;
}
