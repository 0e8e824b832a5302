// The engine's TCP transport on Asio (see asio_transport.hpp).
//
// Every handler ends with the same epilogue: flush the connections that got
// output, forget the dead ones, re-arm the deadline timer. Nothing here calls
// back into the engine from inside an engine callback: a connection whose
// queue overflows is only marked, and reported after the engine returns; a
// paused connection whose output drained is resumed after the flush.
#include "asio_transport.hpp"

#include "log.hpp"
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>

#include "slipway/rendezvous/endpoint.hpp"

namespace slipway::rendezvous {
namespace {

constexpr std::size_t kReadBuffer = 64 * 1024;
constexpr std::size_t kCoalesceLimit = 64 * 1024;
constexpr int kMaxIov = 64;
constexpr int kReadsPerTurn = 16;

}  // namespace

AsioTransport::AsioTransport(asio::io_context& io, const Limits& limits)
    : io_(io), timer_(io), accept_backoff_(io), max_outbound_bytes_(limits.max_outbound_bytes),
      backlog_bytes_(std::max<std::uint64_t>(1, limits.backlog_bytes)), read_buffer_(kReadBuffer) {}

AsioTransport::~AsioTransport() = default;

AsioTransport::Connection* AsioTransport::find(ConnId id) {
  auto it = conns_.find(id);
  return it == conns_.end() || it->second->dead ? nullptr : it->second.get();
}

void AsioTransport::listen(asio::ip::tcp::acceptor& acceptor) {
  acceptor_ = &acceptor;
  accept_next();
}

void AsioTransport::accept_next() {
  acceptor_->async_accept(accept_peer_, [this](const asio::error_code& ec, asio::ip::tcp::socket socket) {
    if (shut_ || ec == asio::error::operation_aborted) return;
    if (ec) {
      // Typically EMFILE: back off instead of spinning on a full table.
      rdzv_log()->warn("rendezvous: accept failed: {} (raise `ulimit -n`?)", ec.message());
      accept_backoff_.expires_after(std::chrono::milliseconds(100));
      accept_backoff_.async_wait([this](const asio::error_code& e) {
        if (!e && !shut_) accept_next();
      });
      return;
    }
    // Reads and writes use MSG_DONTWAIT, so the socket stays as accepted;
    // members heartbeat, so no TCP keepalive either: one setsockopt only.
    asio::error_code ignored;
    socket.set_option(asio::ip::tcp::no_delay(true), ignored);
    const std::string peer = format_endpoint(accept_peer_.address().to_string(), accept_peer_.port());
    const ConnId id = next_id_++;
    auto& c = *conns_.emplace(id, std::make_unique<Connection>(std::move(socket))).first->second;
    if (!engine_->connected(id, peer, SteadyClock::now())) {
      drop(id, c, false);
    } else {
      wait_readable(id, c);
    }
    // Too many connections wait for their Hello: leave the next ones in the
    // listen backlog until some authenticate or time out (after_engine_call).
    if (engine_->accepting()) {
      accept_next();
    } else {
      accept_paused_ = true;
    }
    after_engine_call();
  });
}

void AsioTransport::wait_readable(ConnId id, Connection& c) {
  if (c.waiting_read) return;
  c.waiting_read = true;
  c.socket.async_wait(asio::socket_base::wait_read, [this, id](const asio::error_code& ec) {
    if (shut_ || ec == asio::error::operation_aborted) return;
    Connection* conn = find(id);
    if (!conn) return;
    conn->waiting_read = false;
    on_readable(id);
  });
}

// Reads what is there into the shared buffer and hands it to the engine.
// Asio's reactor is edge-triggered: keep reading until a short read (the
// socket was drained) before waiting again, or continue in a posted turn.
//
// A connection whose output reached backlog_bytes is not read (its peer's
// requests wait in the socket and in the engine) until resume_drained().
void AsioTransport::on_readable(ConnId id) {
  if (shut_) return;
  Connection* c = find(id);
  if (!c || c->closing || c->read_paused) return;
  if (c->out_bytes >= backlog_bytes_) {
    c->read_paused = true;
    return;
  }
  const int fd = c->socket.native_handle();
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
      if (static_cast<std::size_t>(n) < read_buffer_.size()) {
        wait_readable(id, *c);
        break;
      }
      if (round + 1 >= kReadsPerTurn) {
        asio::post(io_, [this, id] { on_readable(id); });
        break;
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      wait_readable(id, *c);
      break;
    }
    drop(id, *c, true);  // EOF or error
    break;
  }
  after_engine_call();
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
  const int fd = c.socket.native_handle();
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
        c.waiting_write = true;
        c.socket.async_wait(asio::socket_base::wait_write, [this, id](const asio::error_code& ec) {
          if (shut_ || ec == asio::error::operation_aborted) return;
          Connection* conn = find(id);
          if (!conn) return;
          conn->waiting_write = false;
          flush(id, *conn);
          after_engine_call();
        });
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
    asio::error_code ignored;
    c.socket.shutdown(asio::socket_base::shutdown_send, ignored);
    drop(id, c, false);
  }
}

void AsioTransport::drop(ConnId id, Connection& c, bool tell_engine) {
  if (c.dead) return;
  c.dead = true;
  asio::error_code ignored;
  c.socket.close(ignored);
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
    accept_next();
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
  if (acceptor_) acceptor_->close(ignored);
  timer_.cancel();
  accept_backoff_.cancel();
  // Best effort: what is queued (e.g. "program stopping") goes out if the
  // socket takes it now; nobody is reported failed.
  for (auto& [id, c] : conns_) c->closing = true;
  for (auto& [id, c] : conns_) {
    if (!c->dead) flush(id, *c);
    c->socket.close(ignored);
  }
  conns_.clear();
  dirty_.clear();
  dead_.clear();
}

}  // namespace slipway::rendezvous
