// HeldPort: binds a task's named port below the ephemeral range and holds it.
#include "slipway/base/held_port.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>

namespace slipway::base {
namespace {

// Binds a fresh socket to `port` on every local address; -1 on failure.
UniqueFd try_bind(std::uint16_t port) {
  UniqueFd fd(socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd) {
    int off = 0;
    setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_addr = in6addr_any;
    addr.sin6_port = htons(port);
    if (bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
    if (errno == EADDRINUSE) return UniqueFd();
  }
  fd.reset(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return fd;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(port);
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
  return UniqueFd();
}

}  // namespace

PortRange default_port_range() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  unsigned ephemeral_low = 0, ephemeral_high = 0;
  PortRange range;
  if (in >> ephemeral_low >> ephemeral_high && ephemeral_low > 2048 + 1024) {
    range.high = static_cast<std::uint16_t>(ephemeral_low - 1);
    range.low = static_cast<std::uint16_t>(ephemeral_low > 12288 ? ephemeral_low - 12288 : 2048);
  }
  return range;
}

HeldPort HeldPort::acquire(const std::string& name, PortRange range) {
  std::random_device seed;
  std::mt19937 rng(seed());
  std::uniform_int_distribution<unsigned> pick(range.low, range.high);
  constexpr int kTries = 256;
  for (int i = 0; i < kTries; ++i) {
    auto port = static_cast<std::uint16_t>(pick(rng));
    if (UniqueFd fd = try_bind(port)) return HeldPort(name, port, std::move(fd));
  }
  throw std::runtime_error("cannot find a free port for '" + name + "' in " +
                           std::to_string(range.low) + "-" + std::to_string(range.high) +
                           " after " + std::to_string(kTries) + " tries");
}

}  // namespace slipway::base
