// Private: the engine's TCP transport on Asio. One thread runs the loop;
// reads go through one shared buffer (readiness waits, then non-blocking
// reads), so an idle connection costs no read buffer; writes are queued per
// connection, coalesced, and flushed with one sendmsg per handler batch.
#pragma once

#include <asio.hpp>

#include <memory>
#include <unordered_map>
#include <vector>

#include "slipway/rendezvous/engine.hpp"

namespace slipway::rendezvous {

class AsioTransport : public Transport {
 public:
  AsioTransport(asio::io_context& io, std::uint64_t max_outbound_bytes);
  ~AsioTransport() override;

  void attach(Engine& engine) { engine_ = &engine; }
  // Starts accepting on `acceptor` (already bound and listening).
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

 private:
  struct Chunk {
    std::string owned;
    std::shared_ptr<const std::string> shared;
    std::size_t size() const { return shared ? shared->size() : owned.size(); }
    const char* data() const { return shared ? shared->data() : owned.data(); }
  };
  struct Connection {
    explicit Connection(asio::ip::tcp::socket s) : socket(std::move(s)) {}
    asio::ip::tcp::socket socket;
    std::vector<Chunk> out;
    std::size_t out_head = 0;    // first chunk not fully written
    std::size_t out_offset = 0;  // bytes of out[out_head] already written
    std::uint64_t out_bytes = 0;
    bool dirty = false;
    bool waiting_write = false;
    bool closing = false;  // the engine closed it: flush, then close
    bool dead = false;     // gone; erased at the end of the handler
  };

  void accept_next();
  void on_readable(ConnId id, const asio::error_code& ec);
  void flush(ConnId id, Connection& c);
  void flush_dirty();
  void drop(ConnId id, Connection& c, bool tell_engine);
  void reap();
  void rearm_timer();
  Connection* find(ConnId id);
  Chunk& tail_for_append(Connection& c);

  asio::io_context& io_;
  Engine* engine_ = nullptr;
  asio::ip::tcp::acceptor* acceptor_ = nullptr;
  asio::ip::tcp::endpoint accept_peer_;
  asio::steady_timer timer_;
  asio::steady_timer accept_backoff_;
  TimePoint armed_ = TimePoint::max();
  std::uint64_t max_outbound_bytes_;
  ConnId next_id_ = 1;
  std::unordered_map<ConnId, std::unique_ptr<Connection>> conns_;
  std::vector<ConnId> dirty_;
  std::vector<ConnId> dead_;
  std::vector<std::uint8_t> read_buffer_;
  bool shut_ = false;
};

}  // namespace slipway::rendezvous
