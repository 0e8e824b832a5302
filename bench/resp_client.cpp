// The minimal RESP2 client of the replay benchmark (see resp_client.hpp).
#include "resp_client.hpp"

#include <stdexcept>

namespace slipway::bench {

void RespConnection::append(const std::vector<std::string_view>& args) {
  out_ += '*';
  out_ += std::to_string(args.size());
  out_ += "\r\n";
  for (std::string_view a : args) {
    out_ += '$';
    out_ += std::to_string(a.size());
    out_ += "\r\n";
    out_.append(a.data(), a.size());
    out_ += "\r\n";
  }
}

void RespConnection::flush() {
  stream_.write(out_);
  out_.clear();
}

RespReply RespConnection::read() {
  const std::string head = stream_.line();
  if (head.empty()) throw std::runtime_error("redis: empty reply line");
  RespReply r;
  r.type = head[0];
  const std::string rest = head.substr(1);
  switch (r.type) {
    case '+':
    case '-':
      r.text = rest;
      return r;
    case ':':
      r.integer = std::stoll(rest);
      return r;
    case '$':
    case '*': {
      const long long count = std::stoll(rest);  // bytes of a bulk string, items of an array
      if (count < 0) {
        r.nil = true;
      } else if (r.type == '$') {
        r.text = stream_.exact(static_cast<std::size_t>(count) + 2);
        r.text.resize(static_cast<std::size_t>(count));
      } else {
        for (long long i = 0; i < count; ++i) r.items.push_back(read());
      }
      return r;
    }
    default:
      throw std::runtime_error("redis: not a RESP reply: " + head.substr(0, 40));
  }
}

RespReply RespConnection::call(const std::vector<std::string_view>& args) {
  append(args);
  flush();
  RespReply r = read();
  if (r.type == '-') throw std::runtime_error("redis: " + r.text);
  return r;
}

}  // namespace slipway::bench
