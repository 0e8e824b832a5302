// The blocking TCP stream of the replay benchmark's text peers (see tcp_stream.hpp).
#include "tcp_stream.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace slipway::bench {

TcpStream::TcpStream(const std::string& who, const std::string& host, std::uint16_t port) : who_(who) {
  const std::string where = host + ":" + std::to_string(port);
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error(who_ + ": socket: " + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    ::close(fd_);
    throw std::runtime_error(who_ + ": not a numeric IPv4 address: " + host);
  }
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const int e = errno;
    ::close(fd_);
    throw std::runtime_error(who_ + ": cannot connect to " + where + ": " + std::strerror(e));
  }
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  const timeval limit{60, 0};  // a server that stops answering fails the run instead of hanging it
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
}

TcpStream::~TcpStream() {
  if (fd_ >= 0) ::close(fd_);
}

void TcpStream::write(std::string_view data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd_, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(who_ + ": write failed: " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

void TcpStream::fill() {
  if (pos_ == in_.size()) {
    in_.clear();
    pos_ = 0;
  } else if (pos_ > (1u << 20)) {
    in_.erase(0, pos_);
    pos_ = 0;
  }
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) throw std::runtime_error(who_ + ": no reply within 60 s");
    if (n < 0) throw std::runtime_error(who_ + ": read failed: " + std::strerror(errno));
    if (n == 0) throw std::runtime_error(who_ + ": the server closed the connection");
    in_.append(chunk, static_cast<std::size_t>(n));
    return;
  }
}

std::string TcpStream::line() {
  std::size_t searched = pos_;
  for (;;) {
    const std::size_t end = in_.find('\n', searched);
    if (end != std::string::npos) {
      std::size_t stop = end;
      if (stop > pos_ && in_[stop - 1] == '\r') --stop;
      std::string out = in_.substr(pos_, stop - pos_);
      pos_ = end + 1;
      return out;
    }
    searched = in_.size();
    const std::size_t before = pos_;
    fill();
    searched -= before - pos_;  // fill() may have moved the unread bytes to the front
  }
}

std::string TcpStream::exact(std::size_t n) {
  while (in_.size() - pos_ < n) fill();
  std::string out = in_.substr(pos_, n);
  pos_ += n;
  return out;
}

std::pair<std::string, std::uint16_t> split_host_port(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("not host:port: " + address);
  return {address.substr(0, colon), static_cast<std::uint16_t>(std::stoul(address.substr(colon + 1)))};
}

}  // namespace slipway::bench
