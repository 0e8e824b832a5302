// Test helper: a raw rendezvous client for attack tests. It owns its socket
// (bound to any 127/8 source address, so that one test can be many peers),
// writes frames it chooses, byte for byte, and reads what comes back; it
// uses only the wire codec and the HMAC, none of the client library.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "slipway/rendezvous/wire.hpp"

namespace slipway::rendezvous::test {

class RawClient {
 public:
  // Connects to 127.0.0.1:port from `source`; throws on failure.
  RawClient(std::uint16_t port, const std::string& source = "127.0.0.1");
  ~RawClient();
  RawClient(RawClient&& other) noexcept;
  RawClient& operator=(RawClient&& other) noexcept;
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  // Reads the Challenge; false on EOF or after `limit`.
  bool read_challenge(std::chrono::milliseconds limit);
  // Sends a Hello (with `token`'s MAC over the challenge) and returns the
  // Welcome; nullopt when the server closed instead.
  std::optional<wire::Welcome> hello(const std::string& token, wire::Role role, const Identity& identity,
                                     std::chrono::milliseconds limit);
  // Reads the challenge and authenticates; throws unless welcomed.
  void join(const std::string& token, wire::Role role, const Identity& identity = {});

  void send(const wire::Message& m);
  void send_bytes(const std::string& bytes);
  // The next message; nullopt on EOF, error or after `limit`.
  std::optional<wire::Message> read(std::chrono::milliseconds limit);
  // The next Reply (events skipped); nullopt as read().
  std::optional<wire::Reply> reply(std::chrono::milliseconds limit);
  // True when the server closed the connection (EOF or reset) within
  // `limit`; whatever it sent first is discarded.
  bool closed_by_server(std::chrono::milliseconds limit);

  int fd() const { return fd_; }

 private:
  bool fill(std::chrono::steady_clock::time_point deadline);

  int fd_ = -1;
  std::string in_;
  wire::Nonce server_nonce_{};
  Limits limits_;
};

// The server process's resident set now and at its peak, from
// /proc/PID/status (VmRSS, VmHWM), in bytes.
std::uint64_t resident_bytes(int pid);
std::uint64_t peak_resident_bytes(int pid);
// How many descriptors the process has open (/proc/PID/fd).
std::size_t open_descriptors(int pid);

}  // namespace slipway::rendezvous::test
