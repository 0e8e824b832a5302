// The engine's TCP transport on Asio (see asio_transport.hpp).
//
// Every handler ends with the same epilogue: flush the connections that got
// output, forget the dead ones, re-arm the deadline timer. Nothing here calls
// back into the engine from inside an engine callback: a connection whose
// queue overflows is only marked, and reported after the engine returns; a
// paused connection whose output drained is resumed after the flush.
#include "asio_transport.hpp"

#include "log.hpp"
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "slipway/rendezvous/endpoint.hpp"

namespace slipway::rendezvous {
namespace {

constexpr std::size_t kReadBuffer = 64 * 1024;
constexpr std::size_t kCoalesceLimit = 64 * 1024;
constexpr int kMaxIov = 64;
constexpr int kReadsPerTurn = 16;
constexpr int kEventsPerTurn = 256;
constexpr int kAcceptsPerTurn = 64;
constexpr std::uint64_t kListenerKey = 0;  // connection ids start at 1
// A connection's registration (edge-triggered; EPOLLOUT added while a write waits).
constexpr std::uint32_t kConnectionEvents = EPOLLIN | EPOLLRDHUP | EPOLLET;

}  // namespace

AsioTransport::AsioTransport(asio::io_context& io, const Limits& limits)
    : io_(io), events_(io), timer_(io), accept_backoff_(io), max_outbound_bytes_(limits.max_outbound_bytes),
      backlog_bytes_(std::max<std::uint64_t>(1, limits.backlog_bytes)), read_buffer_(kReadBuffer) {
  const int set = ::epoll_create1(EPOLL_CLOEXEC);
  if (set < 0) throw std::system_error(errno, std::generic_category(), "rendezvous: epoll_create1");
  events_.assign(set);
}

AsioTransport::~AsioTransport() = default;

AsioTransport::Connection* AsioTransport::find(ConnId id) {
  auto it = conns_.find(id);
  return it == conns_.end() || it->second->dead ? nullptr : it->second.get();
}

void AsioTransport::listen(asio::ip::tcp::acceptor& acceptor) {
  // Linux copies TCP_NODELAY from a listener to the sockets it accepts, so
  // the option is set once here instead of once per connection.
  asio::error_code ec;
  acceptor.set_option(asio::ip::tcp::no_delay(true), ec);
  if (!ec) acceptor.non_blocking(true, ec);
  if (ec) throw std::system_error(ec, "rendezvous: preparing the listener");
  listener_ = base::UniqueFd(acceptor.release());
  epoll_event ev{};
  ev.data.u64 = kListenerKey;
  if (::epoll_ctl(events_.native_handle(), EPOLL_CTL_ADD, listener_.get(), &ev) != 0) {
    throw std::system_error(errno, std::generic_category(), "rendezvous: epoll_ctl(listener)");
  }
  set_listening(true);
  wait_events();
}

// Arms or disarms the listener's EPOLLIN (level-triggered: connections left
// in the backlog are reported again on the next turn).
void AsioTransport::set_listening(bool on) {
  if (listening_ == on || !listener_) return;
  epoll_event ev{};
  ev.events = on ? static_cast<std::uint32_t>(EPOLLIN) : 0u;
  ev.data.u64 = kListenerKey;
  if (::epoll_ctl(events_.native_handle(), EPOLL_CTL_MOD, listener_.get(), &ev) == 0) listening_ = on;
}

void AsioTransport::wait_events() {
  events_.async_wait(asio::posix::stream_descriptor::wait_read, [this](const asio::error_code& ec) {
    if (shut_ || ec == asio::error::operation_aborted) return;
    // Waiting again even when a turn throws (the server loop logs it and
    // goes on): every connection's events come through this one wait.
    struct Rearm {
      AsioTransport& t;
      ~Rearm() {
        if (!t.shut_) t.wait_events();
      }
    } rearm{*this};
    on_events();
  });
}

// One turn: what the epoll set has ready, at most kEventsPerTurn events (Asio
// re-polls the set when wait_events() re-arms, so the rest comes next turn).
void AsioTransport::on_events() {
  epoll_event events[kEventsPerTurn];
  int n;
  do {
    n = ::epoll_wait(events_.native_handle(), events, kEventsPerTurn, 0);
  } while (n < 0 && errno == EINTR);
  for (int i = 0; i < n && !shut_; ++i) {
    const std::uint64_t key = events[i].data.u64;
    if (key == kListenerKey) {
      accept_ready();
      continue;
    }
    const ConnId id = key;
    Connection* c = find(id);
    if (!c) continue;  // dropped earlier in this turn
    const std::uint32_t what = events[i].events;
    try {
      if (c->waiting_write && (what & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
        c->waiting_write = false;
        flush(id, *c);
      }
      if (what & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP)) read_from(id);
    } catch (const std::exception& error) {
      // Its edge is consumed: a connection left half-handled would never be
      // read again. Drop it (its member is reported gone) and go on.
      rdzv_log()->error("rendezvous: dropping a connection whose input failed: {}", error.what());
      if (Connection* failed = find(id)) drop(id, *failed, true);
    }
  }
  after_engine_call();
}

// Takes what the backlog holds (kAcceptsPerTurn at most; the listener is
// level-triggered) while the engine accepts.
void AsioTransport::accept_ready() {
  for (int k = 0; k < kAcceptsPerTurn && !shut_; ++k) {
    sockaddr_storage peer_addr{};
    socklen_t peer_len = sizeof peer_addr;
    base::UniqueFd accepted(::accept4(listener_.get(), reinterpret_cast<sockaddr*>(&peer_addr), &peer_len,
                                  SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!accepted) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      // Typically EMFILE: back off instead of spinning on a full table.
      rdzv_log()->warn("rendezvous: accept failed: {} (raise `ulimit -n`?)", std::strerror(errno));
      set_listening(false);
      accept_backoff_.expires_after(std::chrono::milliseconds(100));
      accept_backoff_.async_wait([this](const asio::error_code& e) {
        if (e || shut_) return;
        if (!accept_paused_) set_listening(true);
      });
      return;
    }
    asio::ip::tcp::endpoint from;
    std::memcpy(from.data(), &peer_addr, std::min<std::size_t>(peer_len, sizeof peer_addr));
    from.resize(peer_len);
    const ConnId id = next_id_++;
    auto& c = *conns_.emplace(id, std::make_unique<Connection>(std::move(accepted))).first->second;
    // Edge-triggered: registered once for its life; EPOLLOUT is added only
    // when a write finds the socket full (wait_writable).
    epoll_event ev{};
    ev.events = kConnectionEvents;
    ev.data.u64 = id;
    if (::epoll_ctl(events_.native_handle(), EPOLL_CTL_ADD, c.fd.get(), &ev) != 0) {
      rdzv_log()->warn("rendezvous: cannot watch a new connection: {}", std::strerror(errno));
      drop(id, c, false);
      continue;
    }
    if (!engine_->connected(id, format_endpoint(from.address().to_string(), from.port()), SteadyClock::now())) {
      drop(id, c, false);
    }
    // At a pre-authentication cap the engine closed an older connection to
    // admit this one: release it now, before the next accept, so that a
    // burst of connections never holds more descriptors than the cap.
    flush_dirty();
    // Too many connections wait for their Hello: leave the next ones in the
    // listen backlog until some authenticate or time out (after_engine_call).
    if (!engine_->accepting()) {
      accept_paused_ = true;
      set_listening(false);
      return;
    }
  }
}

// A connection with something to read (a posted continuation, or resumed).
void AsioTransport::on_readable(ConnId id) {
  read_from(id);
  after_engine_call();
}

// Reads what is there into the shared buffer and hands it to the engine.
// The registration is edge-triggered: read until a short read (the socket
// was drained; more data makes a new edge), or continue in a posted turn
// after kReadsPerTurn full buffers.
//
// A connection whose output reached backlog_bytes is not read (its peer's
// requests wait in the socket and in the engine) until resume_drained().
void AsioTransport::read_from(ConnId id) {
  if (shut_) return;
  Connection* c = find(id);
  if (!c || c->closing || c->read_paused) return;
  if (c->out_bytes >= backlog_bytes_) {
    c->read_paused = true;
    return;
  }
  const int fd = c->fd.get();
  for (int round = 0;; ++round) {
    const ssize_t n = ::recv(fd, read_buffer_.data(), read_buffer_.size(), MSG_DONTWAIT);
    if (n > 0) {
      engine_->received(id, std::span(read_buffer_.data(), static_cast<std::size_t>(n)), SteadyClock::now());
      c = find(id);
      if (!c || c->closing) break;
      if (c->out_bytes >= backlog_bytes_) {
        c->read_paused = true;
        break;
      }
      if (static_cast<std::size_t>(n) < read_buffer_.size()) break;
      if (round + 1 >= kReadsPerTurn) {
        asio::post(io_, [this, id] { on_readable(id); });
        break;
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    drop(id, *c, true);  // EOF or error
    break;
  }
}

AsioTransport::Chunk& AsioTransport::tail_for_append(Connection& c) {
  if (c.out.size() > c.out_head && !c.out.back().shared && c.out.back().owned.size() < kCoalesceLimit) {
    return c.out.back();
  }
  return c.out.emplace_back();
}

// Counts `bytes` more output for `c`, or refuses them (and marks it to be
// dropped) when its queue would pass max_outbound_bytes: checked before
// anything is queued, so no connection ever holds more.
bool AsioTransport::queue(ConnId id, Connection& c, std::size_t bytes) {
  if (!c.overflowed && c.out_bytes + bytes > max_outbound_bytes_) c.overflowed = true;
  if (c.overflowed) {
    mark_dirty(id, c);
    return false;
  }
  c.out_bytes += bytes;
  peak_queued_ = std::max(peak_queued_, c.out_bytes);
  return true;
}

void AsioTransport::mark_dirty(ConnId id, Connection& c) {
  if (c.dirty) return;
  c.dirty = true;
  dirty_.push_back(id);
}

bool AsioTransport::backlogged(ConnId id) {
  const Connection* c = find(id);
  return c && c->out_bytes >= backlog_bytes_;
}

void AsioTransport::send(ConnId id, std::string_view frames) {
  Connection* c = find(id);
  if (!c || c->closing || !queue(id, *c, frames.size())) return;
  tail_for_append(*c).owned.append(frames);
  mark_dirty(id, *c);
}

void AsioTransport::send_shared(ConnId id, std::string_view prefix,
                                std::shared_ptr<const std::string> body) {
  Connection* c = find(id);
  if (!c || c->closing || !queue(id, *c, prefix.size() + body->size())) return;
  if (!prefix.empty()) tail_for_append(*c).owned.append(prefix);
  Chunk chunk;
  chunk.shared = std::move(body);
  c->out.push_back(std::move(chunk));
  mark_dirty(id, *c);
}

void AsioTransport::close(ConnId id) {
  Connection* c = find(id);
  if (!c || c->closing) return;
  c->closing = true;
  mark_dirty(id, *c);
}

void AsioTransport::flush_dirty() {
  while (!dirty_.empty()) {
    std::vector<ConnId> batch;
    batch.swap(dirty_);
    for (ConnId id : batch) {
      Connection* c = find(id);
      if (!c) continue;
      c->dirty = false;
      if (!c->closing && c->overflowed) {
        rdzv_log()->warn("rendezvous: dropping a connection that does not read: {} bytes queued, "
                         "more would pass Limits::max_outbound_bytes = {}",
                         c->out_bytes, max_outbound_bytes_);
        ++dropped_slow_readers_;
        drop(id, *c, true);
        continue;
      }
      flush(id, *c);
    }
  }
}

// Writes as much as the socket takes now with one sendmsg per 64 chunks; the
// rest waits for writability. A closing connection is closed once flushed
// (or at once if its peer does not read).
void AsioTransport::flush(ConnId id, Connection& c) {
  if (c.waiting_write) return;
  const int fd = c.fd.get();
  while (c.out_head < c.out.size()) {
    iovec iov[kMaxIov];
    int count = 0;
    for (std::size_t i = c.out_head; i < c.out.size() && count < kMaxIov; ++i) {
      const std::size_t skip = i == c.out_head ? c.out_offset : 0;
      iov[count].iov_base = const_cast<char*>(c.out[i].data() + skip);
      iov[count].iov_len = c.out[i].size() - skip;
      ++count;
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<std::size_t>(count);
    const ssize_t written = ::sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (written < 0) {
      if (errno == EINTR) continue;
      if ((errno == EAGAIN || errno == EWOULDBLOCK) && !c.closing) {
        wait_writable(id, c);
        return;
      }
      drop(id, c, !c.closing);
      return;
    }
    std::size_t left = static_cast<std::size_t>(written);
    c.out_bytes -= left;
    while (left > 0) {
      const std::size_t avail = c.out[c.out_head].size() - c.out_offset;
      if (left >= avail) {
        left -= avail;
        c.out[c.out_head] = Chunk{};
        ++c.out_head;
        c.out_offset = 0;
      } else {
        c.out_offset += left;
        left = 0;
      }
    }
  }
  c.out.clear();
  c.out_head = 0;
  c.out_offset = 0;
  if (c.read_paused && !c.resume_due && !c.closing) {
    c.resume_due = true;
    resume_.push_back(id);
  }
  if (c.closing) {
    ::shutdown(c.fd.get(), SHUT_WR);
    drop(id, c, false);
  }
}

// The socket took only part of the output: flush the rest when EPOLLOUT
// reports room (armed once; the registration is edge-triggered).
void AsioTransport::wait_writable(ConnId id, Connection& c) {
  c.waiting_write = true;
  if (c.out_armed) return;
  epoll_event ev{};
  ev.events = kConnectionEvents | EPOLLOUT;
  ev.data.u64 = id;
  if (::epoll_ctl(events_.native_handle(), EPOLL_CTL_MOD, c.fd.get(), &ev) == 0) c.out_armed = true;
}

void AsioTransport::drop(ConnId id, Connection& c, bool tell_engine) {
  if (c.dead) return;
  c.dead = true;
  c.fd.reset();  // leaves the epoll set with it
  dead_.push_back(id);
  if (tell_engine) engine_->disconnected(id, SteadyClock::now());
}

void AsioTransport::reap() {
  for (ConnId id : dead_) conns_.erase(id);
  dead_.clear();
}

void AsioTransport::rearm_timer() {
  if (shut_) return;
  const TimePoint next = engine_->next_deadline();
  if (next >= armed_) return;
  armed_ = next;
  timer_.expires_at(next);
  timer_.async_wait([this](const asio::error_code& ec) {
    if (shut_ || ec == asio::error::operation_aborted) return;
    armed_ = TimePoint::max();
    engine_->tick(SteadyClock::now());
    after_engine_call();
  });
}

// Paused connections whose output has drained: the engine serves what it
// held, then they are read again (or pause again).
void AsioTransport::resume_drained() {
  while (!resume_.empty()) {
    std::vector<ConnId> batch;
    batch.swap(resume_);
    for (ConnId id : batch) {
      Connection* c = find(id);
      if (!c) continue;
      c->resume_due = false;
      if (c->closing || !c->read_paused || c->out_bytes >= backlog_bytes_) continue;
      c->read_paused = false;
      engine_->resume(id, SteadyClock::now());
      c = find(id);
      if (!c || c->closing) continue;
      if (c->out_bytes >= backlog_bytes_) {
        c->read_paused = true;
      } else {
        asio::post(io_, [this, id] { on_readable(id); });
      }
    }
    flush_dirty();
  }
}

void AsioTransport::after_engine_call() {
  flush_dirty();
  resume_drained();
  if (accept_paused_ && !shut_ && engine_->accepting()) {
    accept_paused_ = false;
    set_listening(true);
  }
  reap();
  rearm_timer();
}

TransportStats AsioTransport::stats() const {
  TransportStats st;
  for (const auto& [id, c] : conns_) {
    if (c->dead) continue;
    ++st.connections;
    st.queued_bytes += c->out_bytes;
    if (c->read_paused) ++st.paused_connections;
  }
  st.peak_queued_bytes = peak_queued_;
  st.dropped_slow_readers = dropped_slow_readers_;
  return st;
}

void AsioTransport::shutdown() {
  shut_ = true;
  asio::error_code ignored;
  listener_.reset();
  events_.cancel(ignored);
  timer_.cancel();
  accept_backoff_.cancel();
  // Best effort: what is queued (e.g. "program stopping") goes out if the
  // socket takes it now; nobody is reported failed.
  for (auto& [id, c] : conns_) c->closing = true;
  for (auto& [id, c] : conns_) {
    if (!c->dead) flush(id, *c);
  }
  conns_.clear();
  dirty_.clear();
  dead_.clear();
}

}  // namespace slipway::rendezvous
