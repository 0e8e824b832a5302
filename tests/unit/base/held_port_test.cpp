// HeldPort: a held port is taken (nobody else can bind it) until released,
// and lies below the kernel's ephemeral range.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "slipway/base/held_port.hpp"

using namespace slipway;

namespace {
bool can_bind_ipv4(std::uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}
}  // namespace

TEST_CASE("the default range lies below the ephemeral ports") {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  unsigned low = 0, high = 0;
  in >> low >> high;
  auto range = base::default_port_range();
  CHECK(range.low < range.high);
  if (low > 4096) CHECK(range.high < low);
}

TEST_CASE("a held port cannot be taken until released") {
  auto held = base::HeldPort::acquire("grpc");
  CHECK(held.name() == "grpc");
  CHECK(held.port() >= base::default_port_range().low);
  CHECK_FALSE(can_bind_ipv4(held.port()));
  held.release();
  CHECK(can_bind_ipv4(held.port()));
}

TEST_CASE("two held ports differ") {
  auto a = base::HeldPort::acquire("a");
  auto b = base::HeldPort::acquire("b");
  CHECK(a.port() != b.port());
}
