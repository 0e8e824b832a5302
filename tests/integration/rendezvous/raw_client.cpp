// The raw attack client and /proc readers (raw_client.hpp).
#include "raw_client.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace slipway::rendezvous::test {
namespace {

std::uint64_t status_field(int pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1)) * 1024;
  }
  throw std::runtime_error("no " + field + " in /proc/" + std::to_string(pid) + "/status");
}

}  // namespace

RawClient::RawClient(std::uint16_t port, const std::string& source) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, source.c_str(), &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      ::connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    const std::string error = std::strerror(errno);
    ::close(fd_);
    throw std::runtime_error("raw client: connect from " + source + ": " + error);
  }
}

RawClient::~RawClient() {
  if (fd_ >= 0) ::close(fd_);
}

RawClient::RawClient(RawClient&& other) noexcept
    : fd_(other.fd_), in_(std::move(other.in_)), server_nonce_(other.server_nonce_) {
  other.fd_ = -1;
}

RawClient& RawClient::operator=(RawClient&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    in_ = std::move(other.in_);
    server_nonce_ = other.server_nonce_;
    other.fd_ = -1;
  }
  return *this;
}

bool RawClient::fill(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
  char buf[1 << 16];
  const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
  if (n <= 0) return false;
  in_.append(buf, static_cast<std::size_t>(n));
  return true;
}

std::optional<wire::Message> RawClient::read(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (in_.size() >= 4) {
      const auto* p = reinterpret_cast<const std::uint8_t*>(in_.data());
      const std::uint32_t len = p[0] | (p[1] << 8) | (p[2] << 16) | (std::uint32_t{p[3]} << 24);
      if (in_.size() - 4 >= len) {
        wire::Message m;
        std::string error;
        if (!wire::decode(std::span(p + 4, len), limits_, m, error)) {
          throw std::runtime_error("raw client: undecodable frame from the server: " + error);
        }
        in_.erase(0, 4 + std::size_t{len});
        return m;
      }
    }
    if (!fill(deadline)) return std::nullopt;
  }
}

std::optional<wire::Reply> RawClient::reply(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    auto m = read(std::max(left, std::chrono::milliseconds(1)));
    if (!m) return std::nullopt;
    if (auto* r = std::get_if<wire::Reply>(&*m)) return std::move(*r);
  }
}

bool RawClient::read_challenge(std::chrono::milliseconds limit) {
  auto m = read(limit);
  if (!m || !std::holds_alternative<wire::Challenge>(*m)) return false;
  server_nonce_ = std::get<wire::Challenge>(*m).server_nonce;
  return true;
}

std::optional<wire::Welcome> RawClient::hello(const std::string& token, wire::Role role,
                                              const Identity& identity, std::chrono::milliseconds limit) {
  wire::Hello h;
  h.role = role;
  h.identity = identity;
  h.client_nonce[0] = 7;
  h.mac = wire::client_mac(HmacKey(token), server_nonce_, h);
  send(h);
  auto m = read(limit);
  if (!m || !std::holds_alternative<wire::Welcome>(*m)) return std::nullopt;
  return std::get<wire::Welcome>(*m);
}

void RawClient::join(const std::string& token, wire::Role role, const Identity& identity) {
  using namespace std::chrono_literals;
  if (!read_challenge(30s)) throw std::runtime_error("raw client: no challenge");
  const auto w = hello(token, role, identity, 30s);
  if (!w || w->status != Status::ok) {
    throw std::runtime_error("raw client: not welcomed: " + (w ? w->message : std::string("closed")));
  }
}

void RawClient::send(const wire::Message& m) {
  std::string frame;
  wire::encode(m, frame);
  send_bytes(frame);
}

void RawClient::send_bytes(const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("raw client: send: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

bool RawClient::closed_by_server(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return true;
  }
}

std::uint64_t resident_bytes(int pid) { return status_field(pid, "VmRSS"); }
std::uint64_t peak_resident_bytes(int pid) { return status_field(pid, "VmHWM"); }

std::size_t open_descriptors(int pid) {
  DIR* dir = ::opendir(("/proc/" + std::to_string(pid) + "/fd").c_str());
  if (!dir) throw std::runtime_error("cannot list /proc/" + std::to_string(pid) + "/fd");
  std::size_t n = 0;
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  ::closedir(dir);
  return n;
}

}  // namespace slipway::rendezvous::test
