// A blocking TCP client stream for the peers of `slipway-bench replay` that
// speak text protocols (Redis's RESP, JSON lines): connect, write whole
// buffers, read a line or an exact count of bytes through one read buffer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace slipway::bench {

class TcpStream {
 public:
  // Connects to host:port (numeric IPv4) with TCP_NODELAY; throws with
  // `who` and the address in the message when it cannot. A read or write
  // that waits 60 s throws.
  TcpStream(const std::string& who, const std::string& host, std::uint16_t port);
  ~TcpStream();
  TcpStream(const TcpStream&) = delete;
  TcpStream& operator=(const TcpStream&) = delete;

  // Writes all of `data`.
  void write(std::string_view data);
  // The next line, without its "\n" (and a "\r" before it).
  std::string line();
  // The next `n` bytes.
  std::string exact(std::size_t n);

 private:
  void fill();
  std::string who_;
  int fd_ = -1;
  std::string in_;
  std::size_t pos_ = 0;
};

// "host:port" -> its parts; throws when there is no port.
std::pair<std::string, std::uint16_t> split_host_port(const std::string& address);

}  // namespace slipway::bench
