// Private: the engine's TCP transport on Asio. One thread runs the loop;
// reads go through one shared buffer (readiness waits, then non-blocking
// reads), so an idle connection costs no read buffer; writes are queued per
// connection, coalesced, and flushed with one sendmsg per handler batch.
//
// The listener and the connections live in an epoll set of their own
// (edge-triggered, registered once), which Asio's loop waits on as one
// descriptor: a connection costs one epoll_ctl in its life instead of one
// per readiness wait (Asio's async_wait re-arms with EPOLL_CTL_MOD each time),
// and accepted sockets come non-blocking from accept4 and inherit
// TCP_NODELAY from the listener. At 16,000 members that is 4 system calls
// fewer per member (docs/rendezvous.md, "Cost per member").
//
// Bounds: a connection with Limits::backlog_bytes of output queued is not
// read from (its peer's requests wait, Engine::resume) until the peer has
// taken it all; one whose queue would pass max_outbound_bytes (events to a
// subscriber that never reads) is dropped before anything more is queued.
// While the engine has max_connections open, nothing more is accepted (new
// connections wait in the backlog).
#pragma once

#include <asio.hpp>

#include <memory>
#include <unordered_map>
#include <vector>

#include "slipway/rendezvous/engine.hpp"
#include "socket_fd.hpp"
#include "slipway/rendezvous/server.hpp"

namespace slipway::rendezvous {

class AsioTransport : public Transport {
 public:
  AsioTransport(asio::io_context& io, const Limits& limits);
  ~AsioTransport() override;

  void attach(Engine& engine) { engine_ = &engine; }
  // Takes over `acceptor`'s socket (already bound and listening; the
  // acceptor is left closed) and starts accepting on it.
  void listen(asio::ip::tcp::acceptor& acceptor);
  // Closes every connection and the listener (server thread).
  void shutdown();
  // Call after touching the engine from outside a transport handler.
  void after_engine_call();

  // Transport
  void send(ConnId conn, std::string_view frames) override;
  void send_shared(ConnId conn, std::string_view prefix,
                   std::shared_ptr<const std::string> body) override;
  void close(ConnId conn) override;
  bool backlogged(ConnId conn) override;

  TransportStats stats() const;

 private:
  struct Chunk {
    std::string owned;
    std::shared_ptr<const std::string> shared;
    std::size_t size() const { return shared ? shared->size() : owned.size(); }
    const char* data() const { return shared ? shared->data() : owned.data(); }
  };
  struct Connection {
    explicit Connection(base::UniqueFd descriptor) : fd(std::move(descriptor)) {}
    base::UniqueFd fd;  // closed by drop() (it leaves the epoll set with it)
    std::vector<Chunk> out;
    std::size_t out_head = 0;    // first chunk not fully written
    std::size_t out_offset = 0;  // bytes of out[out_head] already written
    std::uint64_t out_bytes = 0;
    bool dirty = false;
    bool waiting_write = false;  // the socket was full: flush again on EPOLLOUT
    bool out_armed = false;      // EPOLLOUT is in its epoll registration
    bool read_paused = false;   // backlogged: not read until its output is drained
    bool resume_due = false;    // drained while paused: in resume_
    bool overflowed = false;    // output would pass max_outbound_bytes: to be dropped
    bool closing = false;  // the engine closed it: flush, then close
    bool dead = false;     // gone; erased at the end of the handler
  };

  void wait_events();
  void on_events();
  void accept_ready();
  void set_listening(bool on);
  void read_from(ConnId id);
  void on_readable(ConnId id);
  void wait_writable(ConnId id, Connection& c);
  bool queue(ConnId id, Connection& c, std::size_t bytes);
  void mark_dirty(ConnId id, Connection& c);
  void resume_drained();
  void flush(ConnId id, Connection& c);
  void flush_dirty();
  void drop(ConnId id, Connection& c, bool tell_engine);
  void reap();
  void rearm_timer();
  Connection* find(ConnId id);
  Chunk& tail_for_append(Connection& c);

  asio::io_context& io_;
  Engine* engine_ = nullptr;
  asio::posix::stream_descriptor events_;  // the epoll set, waited on by Asio
  base::UniqueFd listener_;                    // released from the acceptor; closed by shutdown()
  bool listening_ = false;                 // the listener's EPOLLIN is armed
  asio::steady_timer timer_;
  asio::steady_timer accept_backoff_;
  TimePoint armed_ = TimePoint::max();
  std::uint64_t max_outbound_bytes_;
  std::uint64_t backlog_bytes_;
  bool accept_paused_ = false;  // the engine is not accepting: listen again when it is
  std::uint64_t peak_queued_ = 0;
  std::uint64_t dropped_slow_readers_ = 0;
  ConnId next_id_ = 1;
  std::unordered_map<ConnId, std::unique_ptr<Connection>> conns_;
  std::vector<ConnId> dirty_;
  std::vector<ConnId> dead_;
  std::vector<ConnId> resume_;
  std::vector<std::uint8_t> read_buffer_;
  bool shut_ = false;
};

}  // namespace slipway::rendezvous
