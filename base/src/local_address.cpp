// Local source address toward a peer, by connecting a UDP socket.
#include "slipway/base/local_address.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <sys/socket.h>

#include <cstdlib>

#include "slipway/base/unique_fd.hpp"

namespace slipway::base {

std::optional<std::string> local_address_toward(const std::string& peer) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(peer.c_str(), "9", &hints, &found) != 0 || !found) return std::nullopt;
  std::optional<std::string> result;
  for (addrinfo* ai = found; ai && !result; ai = ai->ai_next) {
    UniqueFd fd(socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!fd || connect(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) continue;
    sockaddr_storage local{};
    socklen_t length = sizeof local;
    if (getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &length) != 0) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const void* address = local.ss_family == AF_INET6
                              ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr)
                              : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr);
    if (inet_ntop(local.ss_family, address, text, sizeof text)) result = std::string(text);
  }
  freeaddrinfo(found);
  return result;
}

std::optional<std::string> interface_of(const std::string& address) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return std::nullopt;
  std::optional<std::string> name;
  for (ifaddrs* ifa = list; ifa && !name; ifa = ifa->ifa_next) {
    if (!ifa->ifa_addr) continue;
    int family = ifa->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw = family == AF_INET6
                          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(ifa->ifa_addr)->sin6_addr)
                          : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(ifa->ifa_addr)->sin_addr);
    if (inet_ntop(family, raw, text, sizeof text) && address == text) name = ifa->ifa_name;
  }
  freeifaddrs(list);
  return name;
}

std::string endpoint_host(const std::string& endpoint) {
  if (!endpoint.empty() && endpoint.front() == '[') {
    auto close = endpoint.find(']');
    return close == std::string::npos ? "" : endpoint.substr(1, close - 1);
  }
  auto colon = endpoint.rfind(':');
  return colon == std::string::npos ? "" : endpoint.substr(0, colon);
}

std::string this_host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace slipway::base
