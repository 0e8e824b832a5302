// A minimal Redis client for `slipway-bench replay` (the Redis peer): RESP2
// commands appended to a buffer and written in one go (pipelining), replies
// read back in order from a blocking TCP socket. Enough for the commands the
// benchmark sends (LPUSH, LTRIM, LLEN, LINDEX, FLUSHALL, PING); no library.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tcp_stream.hpp"

namespace slipway::bench {

struct RespReply {
  char type = 0;          // '+', '-', ':', '$', '*'
  bool nil = false;       // a nil bulk string or array
  std::int64_t integer = 0;
  std::string text;       // simple string, error or bulk string
  std::vector<RespReply> items;
};

class RespConnection {
 public:
  // Connects to host:port (numeric IPv4), TCP_NODELAY; throws on failure.
  RespConnection(const std::string& host, std::uint16_t port) : stream_("redis", host, port) {}

  // Appends one command (an array of bulk strings) to the output buffer.
  void append(const std::vector<std::string_view>& args);
  // Writes the output buffer (blocking until the kernel took all of it).
  void flush();
  // Reads one reply; throws when the server closed the connection or sent
  // something that is not RESP. An error reply is returned, not thrown.
  RespReply read();
  // append + flush + read; throws on an error reply.
  RespReply call(const std::vector<std::string_view>& args);

 private:
  TcpStream stream_;
  std::string out_;
};

}  // namespace slipway::bench
