// The courier's TCP transport: the listener, inbound connections that
// parse frames with every length bounded, and outbound links that queue
// and write frames (see tcp_transport.hpp for the frame and the bounds).
// Over 500 lines, one concern: one transport; its listener, inbound and
// outbound connections share its epoll set and bounds, which a split would
// have to expose in a second private header.
#include "tcp_transport.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>

#include "slipway/channels/error.hpp"
#include "tcp_frame.hpp"

namespace slipway::channels::detail {
namespace {

constexpr std::size_t kScratchBytes = 64 * 1024;
// Read at most this much from one connection per turn, so that one busy
// connection does not starve the others.
constexpr std::size_t kReadBudget = 4 << 20;
constexpr int kAcceptsPerTurn = 64;

ChannelError os_error(const std::string& what) {
  return ChannelError(Errc::transport, what + ": " + std::strerror(errno));
}

// A numeric address and port as a socket address; false when not numeric.
bool to_sockaddr(const std::string& address, std::uint16_t port, sockaddr_storage& out,
                 socklen_t& length) {
  out = {};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&out);
  if (::inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    length = sizeof(sockaddr_in);
    return true;
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&out);
  if (::inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    length = sizeof(sockaddr_in6);
    return true;
  }
  return false;
}

// No Nagle delay; a peer that vanishes (a host cut off: no reset) is
// noticed within about 5 s, as UCX's keepalive was set for courier.
void tune(int fd) noexcept {
  int one = 1, idle = 2, interval = 1, count = 3;
  unsigned user_timeout_ms = 5000;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof user_timeout_ms);
}

// An outbound connection: frames queued and written in order.
class TcpLink final : public Link, public TcpTransport::Watched {
 public:
  TcpLink(TcpTransport& transport, base::UniqueFd fd, bool connected, ErrorCallback on_error)
      : transport_(transport), fd_(std::move(fd)), connected_(connected), on_error_(std::move(on_error)) {
    watching_ = events();
    id_ = transport_.watch(this, fd_.get(), watching_);
  }

  ~TcpLink() override {
    if (!failed_) transport_.unwatch(id_, fd_.get());
    while (!queue_.empty()) {
      auto message = std::move(queue_.front().message);
      queue_.pop_front();
      message->complete(UCS_ERR_CANCELED, 0);
    }
  }

  void send(unsigned am_id, std::unique_ptr<OutgoingMessage> message, std::uint32_t) override {
    if (failed_) {
      message->complete(status_, 0);
      return;
    }
    Queued queued;
    queued.prefix = encode_frame_prefix(
        FramePrefix{am_id, message->header().size, message->payload_size()});
    queued.total = kFramePrefixBytes + message->header().size + message->payload_size();
    queued.message = std::move(message);
    queue_.push_back(std::move(queued));
    if (connected_ && queue_.size() == 1) flush();
  }

  bool failed() const noexcept override { return failed_; }

  void ready(std::uint32_t events) override {
    if (failed_) return;
    if (!connected_) {
      int error = 0;
      socklen_t length = sizeof error;
      if (::getsockopt(fd_.get(), SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
      if (error != 0 || (events & (EPOLLERR | EPOLLHUP))) {
        fail(UCS_ERR_UNREACHABLE);
        return;
      }
      if (!(events & EPOLLOUT)) return;
      connected_ = true;
      flush();
      return;
    }
    // Nothing is ever sent to us on this connection: input, a hang-up or
    // an error all mean the peer is gone.
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
      fail(UCS_ERR_CONNECTION_RESET);
      return;
    }
    if (events & EPOLLOUT) flush();
  }

 private:
  struct Queued {
    std::array<std::byte, kFramePrefixBytes> prefix{};
    std::unique_ptr<OutgoingMessage> message;
    std::size_t sent = 0;
    std::size_t total = 0;
  };

  std::uint32_t events() const noexcept {
    if (!connected_) return EPOLLOUT;
    return EPOLLIN | EPOLLRDHUP | (queue_.empty() ? 0u : std::uint32_t{EPOLLOUT});
  }

  // Writes what the socket takes, completing each message written whole;
  // up to kBatch messages and kMaxParts pieces (a gathered payload's
  // pieces each) per sendmsg.
  void flush() {
    while (!queue_.empty()) {
      parts_.clear();
      bool full = false;
      for (std::size_t i = 0; i < queue_.size() && i < kBatch && !full; ++i) {
        const Queued& q = queue_[i];
        std::size_t skip = i == 0 ? q.sent : 0;
        auto add = [&](const std::byte* data, std::size_t size) {
          if (full) return;
          if (skip >= size) {
            skip -= size;
            return;
          }
          parts_.push_back(iovec{const_cast<std::byte*>(data + skip), size - skip});
          skip = 0;
          full = parts_.size() == kMaxParts;
        };
        add(q.prefix.data(), q.prefix.size());
        add(q.message->header().bytes.data(), q.message->header().size);
        const OutgoingMessage& m = *q.message;
        for (std::size_t p = 0; p < m.piece_count() && !full; ++p) {
          const ByteView piece = m.piece(p);
          add(piece.data(), piece.size());
        }
      }
      msghdr header{};
      header.msg_iov = parts_.data();
      header.msg_iovlen = parts_.size();
      ssize_t n = ::sendmsg(fd_.get(), &header, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        fail(UCS_ERR_CONNECTION_RESET);
        return;
      }
      std::size_t written = static_cast<std::size_t>(n);
      while (written > 0 && !queue_.empty()) {
        Queued& q = queue_.front();
        std::size_t take = std::min(written, q.total - q.sent);
        q.sent += take;
        written -= take;
        if (q.sent < q.total) break;
        auto message = std::move(q.message);
        queue_.pop_front();
        message->complete(UCS_OK, 0);
      }
    }
    if (events() != watching_) {
      watching_ = events();
      transport_.rewatch(id_, fd_.get(), watching_);
    }
  }

  void fail(ucs_status_t status) {
    if (failed_) return;
    failed_ = true;
    status_ = status;
    transport_.unwatch(id_, fd_.get());
    while (!queue_.empty()) {
      auto message = std::move(queue_.front().message);
      queue_.pop_front();
      message->complete(status, 0);
    }
    try {
      if (on_error_) on_error_(status);
    } catch (...) {
      // The owner's callback only records the failure.
    }
  }

  static constexpr std::size_t kBatch = 16;
  static constexpr std::size_t kMaxParts = 1024;  // IOV_MAX on Linux
  TcpTransport& transport_;
  base::UniqueFd fd_;  // closed with this object, after it left the epoll set
  std::uint64_t id_ = 0;
  bool connected_;
  std::uint32_t watching_ = 0;  // the events epoll watches for
  bool failed_ = false;
  ucs_status_t status_ = UCS_OK;
  ErrorCallback on_error_;
  std::deque<Queued> queue_;
  std::vector<iovec> parts_;  // flush()'s, kept for its capacity
};

}  // namespace

class TcpTransport::Listener final : public Watched {
 public:
  explicit Listener(TcpTransport& transport) : transport_(transport) {}
  void ready(std::uint32_t) override { transport_.accept_all(); }

 private:
  TcpTransport& transport_;
};

// One accepted connection: frames read through stages, every length
// checked before anything is kept.
class TcpTransport::Inbound final : public Watched {
 public:
  Inbound(TcpTransport& transport, base::UniqueFd fd) : transport_(transport), fd_(std::move(fd)) {
    id_ = transport_.watch(this, fd_.get(), EPOLLIN | EPOLLRDHUP);
  }
  ~Inbound() override {
    if (open_) transport_.unwatch(id_, fd_.get());
    if (payload_op_) payload_op_->complete(UCS_ERR_CONNECTION_RESET, 0);
  }
  std::uint64_t id() const noexcept { return id_; }
  bool trusted() const noexcept { return trusted_; }

  void close() noexcept {
    if (!open_) return;
    open_ = false;
    transport_.unwatch(id_, fd_.get());
    transport_.close_inbound(id_);
  }

  void ready(std::uint32_t) override {
    std::size_t budget = kReadBudget;
    auto& scratch = transport_.scratch();
    while (open_ && budget > 0) {
      ssize_t n;
      if (stage_ == Stage::deferred && left_ >= scratch.size()) {
        // A large payload: straight into its buffer.
        n = ::read(fd_.get(), payload_ + (payload_length_ - left_), left_);
        if (n > 0) {
          left_ -= static_cast<std::size_t>(n);
          if (left_ == 0) finish_payload();
        }
      } else {
        n = ::read(fd_.get(), scratch.data(), scratch.size());
        if (n > 0) consume(scratch.data(), static_cast<std::size_t>(n));
      }
      if (n == 0) {
        close();  // the peer closed (a payload cut short fails with it)
        return;
      }
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) close();
        return;
      }
      budget -= std::min(budget, static_cast<std::size_t>(n));
    }
  }

 private:
  enum class Stage { prefix, header, eager, deferred, skip };

  // Takes up what `data` holds, through as many frames as it covers.
  void consume(const std::byte* data, std::size_t size) {
    while (size > 0 && open_) {
      switch (stage_) {
        case Stage::prefix:
        case Stage::header:
        case Stage::eager: {
          std::size_t take = std::min(size, want_ - held_.size());
          held_.insert(held_.end(), data, data + take);
          data += take;
          size -= take;
          if (held_.size() == want_) advance();
          break;
        }
        case Stage::deferred: {
          std::size_t take = std::min(size, left_);
          std::memcpy(payload_ + (payload_length_ - left_), data, take);
          left_ -= take;
          data += take;
          size -= take;
          if (left_ == 0) finish_payload();
          break;
        }
        case Stage::skip: {
          std::size_t take = std::min<std::size_t>(size, left_);
          left_ -= take;
          data += take;
          size -= take;
          if (left_ == 0) start_frame();
          break;
        }
      }
    }
  }

  void start_frame() {
    stage_ = Stage::prefix;
    want_ = kFramePrefixBytes;
    held_.clear();
  }

  // A stage's bytes are all held: on to the next.
  void advance() {
    if (stage_ == Stage::prefix) {
      auto decoded = decode_frame_prefix(ByteView(held_), transport_.settings().max_frame_bytes);
      if (!decoded.prefix) {
        // Not a courier frame (or not one we could take): the stream
        // cannot be resynchronised.
        close();
        return;
      }
      am_id_ = decoded.prefix->am_id;
      data_length_ = static_cast<std::size_t>(decoded.prefix->payload_length);
      stage_ = Stage::header;
      want_ = decoded.prefix->header_length;
      held_.clear();
      return;
    }
    if (stage_ == Stage::header) {
      header_.assign(held_.begin(), held_.end());
      held_.clear();
      if (data_length_ <= kEagerBytes) {
        stage_ = Stage::eager;
        want_ = data_length_;
        if (want_ == 0) advance();
        return;
      }
      deliver_deferred();
      return;
    }
    // Stage::eager: the whole frame is here.
    transport_.sink()(am_id_, ByteView(header_), held_.data(), held_.size(), nullptr, trusted_);
    start_frame();
  }

  void deliver_deferred() {
    PayloadReader reader = [this](std::unique_ptr<ucx::Operation> op, std::byte* buffer,
                                  std::size_t length) {
      payload_op_ = std::move(op);
      payload_ = buffer;
      payload_length_ = length;
      return UCS_INPROGRESS;
    };
    transport_.sink()(am_id_, ByteView(header_), nullptr, data_length_, &reader, trusted_);
    left_ = data_length_;
    if (payload_op_ && payload_length_ == data_length_) {
      stage_ = Stage::deferred;
    } else {
      if (payload_op_) {  // a buffer of another size: not this frame's
        payload_op_->complete(UCS_ERR_MESSAGE_TRUNCATED, 0);
        payload_op_.reset();
      }
      stage_ = Stage::skip;  // read past, kept nowhere
    }
  }

  void finish_payload() {
    auto op = std::move(payload_op_);
    payload_ = nullptr;
    op->complete(UCS_OK, payload_length_);
    start_frame();
  }

  TcpTransport& transport_;
  base::UniqueFd fd_;  // closed with this object, after it left the epoll set
  std::uint64_t id_ = 0;
  bool open_ = true;
  bool trusted_ = false;
  Stage stage_ = Stage::prefix;
  std::size_t want_ = kFramePrefixBytes;  // bytes the stage holds when complete
  std::vector<std::byte> held_;
  unsigned am_id_ = 0;
  std::size_t data_length_ = 0;
  Bytes header_;
  std::size_t left_ = 0;  // payload bytes still to read (deferred, skip)
  std::unique_ptr<ucx::Operation> payload_op_;
  std::byte* payload_ = nullptr;
  std::size_t payload_length_ = 0;
};

TcpTransport::TcpTransport(Settings settings, FrameSink sink)
    : settings_(std::move(settings)), sink_(std::move(sink)), scratch_(kScratchBytes) {
  sockaddr_storage address{};
  socklen_t length = 0;
  if (!to_sockaddr(settings_.address, 0, address, length)) {
    throw ChannelError(Errc::invalid_argument,
                       "'" + settings_.address + "' is not a numeric IP address to listen on");
  }
  epoll_fd_.reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_fd_) throw os_error("epoll_create1");
  listen_fd_.reset(::socket(address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!listen_fd_) throw os_error("socket");
  if (::bind(listen_fd_.get(), reinterpret_cast<sockaddr*>(&address), length) != 0) {
    throw os_error("listening for courier connections on " + settings_.address);
  }
  if (::listen(listen_fd_.get(), 1024) != 0) throw os_error("listen");
  sockaddr_storage bound{};
  socklen_t bound_length = sizeof bound;
  if (::getsockname(listen_fd_.get(), reinterpret_cast<sockaddr*>(&bound), &bound_length) != 0) {
    throw os_error("getsockname");
  }
  port_ = ntohs(bound.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&bound)->sin_port
                                           : reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  spare_fd_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  listener_ = std::make_unique<Listener>(*this);
  listener_id_ = watch(listener_.get(), listen_fd_.get(), EPOLLIN);
}

TcpTransport::~TcpTransport() {
  closing_.clear();
  inbound_.clear();
}

std::uint64_t TcpTransport::watch(Watched* watched, int fd, std::uint32_t events) {
  std::uint64_t id = next_id_++;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = id;
  if (::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) throw os_error("epoll_ctl");
  watched_[id] = watched;
  return id;
}

void TcpTransport::rewatch(std::uint64_t id, int fd, std::uint32_t events) noexcept {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = id;
  ::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_MOD, fd, &ev);
}

void TcpTransport::unwatch(std::uint64_t id, int fd) noexcept {
  ::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_DEL, fd, nullptr);
  watched_.erase(id);
}

void TcpTransport::close_inbound(std::uint64_t id) noexcept {
  auto it = inbound_.find(id);
  if (it == inbound_.end()) return;
  try {
    closing_.push_back(std::move(it->second));
  } catch (...) {
    // Destroyed right here instead (only a frame being handled may refer to it).
  }
  inbound_.erase(it);
}

bool TcpTransport::progress() {
  epoll_event events[64];
  int n = ::epoll_wait(epoll_fd_.get(), events, 64, 0);
  for (int i = 0; i < n; ++i) {
    // A connection closed by an earlier event of this batch is gone.
    auto it = watched_.find(events[i].data.u64);
    if (it != watched_.end()) it->second->ready(events[i].events);
  }
  closing_.clear();
  return n > 0;
}

bool TcpTransport::evict_one() noexcept {
  for (auto& [id, inbound] : inbound_) {
    if (inbound->trusted()) continue;
    inbound->close();
    return true;
  }
  return false;
}

int TcpTransport::accept_one() noexcept {
  return ::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

void TcpTransport::accept_all() {
  for (int round = 0; round < kAcceptsPerTurn; ++round) {
    int fd = accept_one();
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if ((errno == EMFILE || errno == ENFILE) && evict_one()) {
        closing_.clear();  // its descriptor is free now
        continue;
      }
      if ((errno == EMFILE || errno == ENFILE) && spare_fd_) {
        // Out of descriptors with nothing to evict: take the connection
        // off the queue and close it, or the listener stays ready forever.
        spare_fd_.reset();
        base::UniqueFd refused(accept_one());
        refused.reset();
        spare_fd_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
        continue;
      }
      return;  // EAGAIN: all taken
    }
    base::UniqueFd accepted(fd);
    // Every connection is the program's own: with no room, it is closed.
    if (inbound_.size() >= settings_.max_inbound && !evict_one()) continue;
    tune(accepted.get());
    try {
      auto inbound = std::make_unique<Inbound>(*this, std::move(accepted));
      inbound_.emplace(inbound->id(), std::move(inbound));
    } catch (...) {
      // Closed with whatever owned it: nothing else to undo.
    }
  }
}

std::unique_ptr<Link> TcpTransport::connect(const std::string& address, std::uint16_t port,
                                            Link::ErrorCallback on_error) {
  sockaddr_storage peer{};
  socklen_t length = 0;
  if (port == 0 || !to_sockaddr(address, port, peer, length)) {
    throw ChannelError(Errc::protocol, "'" + address + "' port " + std::to_string(port) +
                                           " is not a numeric IP address and port");
  }
  base::UniqueFd fd(::socket(peer.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) throw os_error("socket");
  tune(fd.get());
  bool connected = false;
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&peer), length) == 0) {
    connected = true;
  } else if (errno != EINPROGRESS) {
    throw ChannelError(Errc::peer_lost, "connecting to " + address + " port " + std::to_string(port) + ": " +
                                            std::strerror(errno));
  }
  return std::make_unique<TcpLink>(*this, std::move(fd), connected, std::move(on_error));
}

std::string choose_tcp_address(const std::string& net_devices) {
  std::string wanted;
  if (!net_devices.empty() && net_devices != "all") {
    wanted = net_devices.substr(0, net_devices.find(','));
    wanted = wanted.substr(0, wanted.find(':'));
  }
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return "127.0.0.1";
  std::string named, first_up, first_up6;
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || !(a->ifa_flags & IFF_UP)) continue;
    const int family = a->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw = family == AF_INET
                          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr)
                          : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr);
    if (!::inet_ntop(family, raw, text, sizeof text)) continue;
    if (family == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(static_cast<const in6_addr*>(raw))) continue;
    if (!wanted.empty() && wanted == a->ifa_name) {
      if (named.empty() || (family == AF_INET && named.find(':') != std::string::npos)) named = text;
    }
    if (a->ifa_flags & IFF_LOOPBACK) continue;
    if (family == AF_INET && first_up.empty()) first_up = text;
    if (family == AF_INET6 && first_up6.empty()) first_up6 = text;
  }
  ::freeifaddrs(list);
  if (!named.empty()) return named;
  if (!first_up.empty()) return first_up;
  if (!first_up6.empty()) return first_up6;
  return "127.0.0.1";
}

}  // namespace slipway::channels::detail
