// The courier's own TCP transport: a listener whose connections carry
// courier frames one way (a caller's requests to a callee, a callee's
// replies back on its own connection), and outbound links (link.hpp).
// It replaces UCX's TCP transport, whose port parses a stranger's bytes
// before anyone is authenticated and aborts the process on malformed ones
// (UCX 1.13's tcp_ep.c). Here every byte from the wire is read by code
// that bounds it and never aborts: a frame whose prefix is wrong closes
// its connection, and what a frame may make this side keep is bounded
// before it is read.
//
// Frame: a prefix (tcp_frame.hpp: magic, active-message id, header and
// payload lengths) | header (wire.hpp) | payload.
//
// Inbound connections: at most `max_inbound`; past it the oldest one not
// yet trusted (the sink marks a connection trusted once it carried what
// only a task of the program can send) is closed for the new one. A frame's
// header is handed to the sink with its payload when that is at most
// kEagerBytes, else before it (`deferred`): the sink then either takes the
// payload through the reader (it is read into the sink's buffer) or leaves
// it, and it is read past without being kept.
//
// Contract: everything runs on the endpoint's owner thread (progress_loop.hpp):
// progress(), connect(), and the links' send() and destruction. fd() is an
// epoll descriptor, readable while progress() has something to do. Links
// must be destroyed before the transport.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "slipway/base/unique_fd.hpp"
#include "link.hpp"

namespace slipway::channels::detail {

inline constexpr std::size_t kEagerBytes = 16 * 1024;

class TcpTransport {
 public:
  // One frame received: `data` holds the payload (not deferred) or is null
  // (deferred, `read_payload` set). Returns UCS_INPROGRESS when it took the
  // payload through `read_payload`. Sets `trusted` when the frame shows
  // its connection is the program's.
  using FrameSink = std::function<ucs_status_t(unsigned am_id, ByteView header, std::byte* data,
                                               std::size_t length,
                                               const PayloadReader* read_payload, bool& trusted)>;
  struct Settings {
    std::string address;  // numeric IPv4 or IPv6 to listen on and publish
    std::size_t max_frame_bytes = 0;
    std::size_t max_inbound = 4096;
  };

  // Throws ChannelError (Errc::transport) when it cannot listen.
  TcpTransport(Settings settings, FrameSink sink);
  ~TcpTransport();
  TcpTransport(const TcpTransport&) = delete;
  TcpTransport& operator=(const TcpTransport&) = delete;

  int fd() const noexcept { return epoll_fd_.get(); }
  const std::string& address() const noexcept { return settings_.address; }
  std::uint16_t port() const noexcept { return port_; }

  // Handles what is ready; whether anything was.
  bool progress();
  // A link to the listener at address:port (connected asynchronously; a
  // failure is reported through on_error). Throws ChannelError
  // (Errc::protocol) for an address that is not numeric.
  std::unique_ptr<Link> connect(const std::string& address, std::uint16_t port,
                                Link::ErrorCallback on_error);

  // Internal (for the connections of this transport).
  class Watched {
   public:
    virtual ~Watched() = default;
    virtual void ready(std::uint32_t events) = 0;
  };
  std::uint64_t watch(Watched* watched, int fd, std::uint32_t events);
  void rewatch(std::uint64_t id, int fd, std::uint32_t events) noexcept;
  void unwatch(std::uint64_t id, int fd) noexcept;
  std::vector<std::byte>& scratch() noexcept { return scratch_; }
  const Settings& settings() const noexcept { return settings_; }
  const FrameSink& sink() const noexcept { return sink_; }
  void close_inbound(std::uint64_t id) noexcept;  // at the end of this progress()

 private:
  class Listener;
  class Inbound;
  void accept_all();
  bool evict_one() noexcept;
  int accept_one() noexcept;

  Settings settings_;
  FrameSink sink_;
  base::UniqueFd epoll_fd_;
  base::UniqueFd listen_fd_;
  base::UniqueFd spare_fd_;  // closed to accept (and refuse) a connection when out of descriptors
  std::uint16_t port_ = 0;
  std::uint64_t next_id_ = 1;
  std::uint64_t listener_id_ = 0;
  std::unique_ptr<Listener> listener_;
  std::unordered_map<std::uint64_t, Watched*> watched_;
  std::map<std::uint64_t, std::unique_ptr<Inbound>> inbound_;  // by age
  std::vector<std::unique_ptr<Inbound>> closing_;
  std::vector<std::byte> scratch_;
};

// The address to listen on: the first address of the interface named
// first in `net_devices` (as UCX_NET_DEVICES: "eth0", "lo", "mlx5_0:1"),
// else of the first interface that is up and not loopback, else loopback.
std::string choose_tcp_address(const std::string& net_devices);

}  // namespace slipway::channels::detail
