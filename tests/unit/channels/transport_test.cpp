// What a courier endpoint publishes and which transports it takes: courier
// addresses (encoding, and parsing with every part bounded) and the
// transport plan made from a TLS setting (UCX never gets tcp).
#include <catch2/catch.hpp>

#include "courier_address.hpp"
#include "transport_plan.hpp"

#include <ucp/api/ucp.h>

using namespace slipway::channels;
using namespace slipway::channels::detail;

TEST_CASE("courier addresses round-trip and refuse anything else", "[channels][address]") {
  CourierAddress address;
  address.host_key = "boot/net:1";
  address.tcp_address = "10.0.0.7";
  address.tcp_port = 40000;
  address.ucx = Bytes(300, std::byte{7});
  const Bytes encoded = encode_courier_address(address);
  auto parsed = parse_courier_address(encoded);
  REQUIRE(parsed.address);
  CHECK(parsed.address->host_key == address.host_key);
  CHECK(parsed.address->tcp_address == address.tcp_address);
  CHECK(parsed.address->tcp_port == 40000);
  CHECK(parsed.address->ucx == address.ucx);

  for (std::size_t size = 0; size < encoded.size(); ++size) {
    INFO("cut to " << size << " bytes");
    CHECK_FALSE(parse_courier_address(ByteView(encoded.data(), size)).address);
  }
  Bytes longer = encoded;
  longer.push_back(std::byte{0});
  CHECK_THAT(parse_courier_address(longer).error, Catch::Contains("1 bytes too many"));
  Bytes tag = encoded;
  tag[3] = std::byte{2};
  CHECK_THAT(parse_courier_address(tag).error, Catch::Contains("not a courier address"));
  CHECK_THAT(parse_courier_address(Bytes(kMaxCourierAddressBytes + 1)).error,
             Catch::Contains("longer than any"));

  CourierAddress no_port = address;
  no_port.tcp_port = 0;
  CHECK_THAT(parse_courier_address(encode_courier_address(no_port)).error,
             Catch::Contains("no port"));
  CourierAddress too_long = address;
  too_long.host_key.assign(kMaxHostKeyBytes + 1, 'x');
  CHECK_THROWS(encode_courier_address(too_long));
}

TEST_CASE("this host's key names the boot and the network namespace", "[channels][address]") {
  const std::string key = local_host_key();
  CHECK(key == local_host_key());
  CHECK(key.find("/net:") != std::string::npos);
  CHECK(key.size() <= kMaxHostKeyBytes);
}

TEST_CASE("UCX never gets tcp: the courier's own TCP takes its place", "[channels][transports]") {
  struct Case {
    std::string tls, ucx_tls;
    bool tcp, ucx, shared_memory;
  };
  for (const Case& c : std::vector<Case>{
           {"", "^sysv,tcp", true, true, true},
           {"tcp", "self", true, false, false},
           {"posix,cma", "posix,cma", false, true, true},
           {"tcp,posix,sysv,cma", "posix,sysv,cma", true, true, true},
           {"all", "^tcp", true, true, true},
           {"^sysv", "^sysv,tcp", true, true, true},
           {"^tcp", "^tcp", false, true, true},
           {"\\tcp,rc", "rc", true, true, false},
           {"self", "self", false, false, false},
       }) {
    INFO("tls=" << c.tls);
    const TransportPlan plan = plan_transports(c.tls);
    CHECK(plan.ucx_tls == c.ucx_tls);
    CHECK(plan.tcp == c.tcp);
    CHECK(plan.ucx == c.ucx);
    CHECK(plan.shared_memory == c.shared_memory);
  }
}

TEST_CASE("over shared memory payloads up to kSharedMemoryEagerMax go eagerly, larger ones by "
          "rendezvous", "[channels][transports]") {
  const std::uint32_t eager = UCP_AM_SEND_FLAG_EAGER;
  CHECK(ucx_send_flags(true, 8, 0) == eager);
  CHECK(ucx_send_flags(true, 32 * 1024 + 300, 0) == eager);  // a replay sample reply
  CHECK(ucx_send_flags(true, kSharedMemoryEagerMax, 0) == eager);
  CHECK(ucx_send_flags(true, kSharedMemoryEagerMax + 1, 0) == 0);
  CHECK(ucx_send_flags(true, 1 << 20, 0) == 0);
  // What the sender asked for stands; RDMA (not shared memory) is left to UCX.
  CHECK(ucx_send_flags(true, 8, UCP_AM_SEND_FLAG_RNDV) == UCP_AM_SEND_FLAG_RNDV);
  CHECK(ucx_send_flags(true, 1 << 20, eager) == eager);
  CHECK(ucx_send_flags(false, 8, 0) == 0);
  CHECK(ucx_send_flags(false, 8, eager) == eager);
}
