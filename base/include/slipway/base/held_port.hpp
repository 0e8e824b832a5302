// HeldPort: a TCP port chosen for a task and held until the task starts.
//
// How slipway avoids the race between choosing a port and using it: the
// agent binds a socket (IPv6 dual-stack, or IPv4 where IPv6 is absent) to a
// port drawn at random from a range *below* the kernel's ephemeral range
// (/proc/sys/net/ipv4/ip_local_port_range), so no program asking the kernel
// for "any port" can be handed it. The socket stays bound while the address
// is published and the peers' addresses are awaited, and is closed only
// when the user's command is exec'ed (close-on-exec). The remaining window,
// between that exec and the command's own bind, is open only to a program
// that picks that very port number by hand.
#pragma once

#include <cstdint>
#include <string>

#include "slipway/base/unique_fd.hpp"

namespace slipway::base {

struct PortRange {
  std::uint16_t low = 20000;
  std::uint16_t high = 32767;
};

// The range below the kernel's ephemeral ports (at least 1024 wide), read
// from /proc; falls back to 20000-32767.
PortRange default_port_range();

class HeldPort {
 public:
  // Binds a free port from `range`; throws std::runtime_error when none of
  // a bounded number of random tries succeeds.
  static HeldPort acquire(const std::string& name, PortRange range = default_port_range());

  const std::string& name() const { return name_; }
  std::uint16_t port() const { return port_; }
  int fd() const { return fd_.get(); }
  // Closes the socket now, freeing the port for the command.
  void release() { fd_.reset(); }
  // Hands the bound socket over, for a port the agent serves itself.
  UniqueFd take_socket() { return std::move(fd_); }

 private:
  HeldPort(std::string name, std::uint16_t port, UniqueFd fd)
      : name_(std::move(name)), port_(port), fd_(std::move(fd)) {}
  std::string name_;
  std::uint16_t port_;
  UniqueFd fd_;
};

}  // namespace slipway::base
