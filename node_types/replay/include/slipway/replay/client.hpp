// The C++ client of a replay node (docs/replay.md): every shard of the node
// resolved through courier, inserts spread over shards, samples that wait
// (re-asking on not_ready) until the caller's own deadline, priority
// updates and deletes routed by the key's shard, a Writer that keeps up to
// max_in_flight inserts in flight (backpressure when the server parks
// them), a Sampler that keeps `prefetch` samples in flight, and work-table
// leases.
//
// Contract: calls identify the task (SLIPWAY_NODE, SLIPWAY_REPLICA,
// SLIPWAY_ATTEMPT) and this client (a random id). A lease is acked or
// nacked with its token (Lease::ref()); inside slipway the client journals
// the leases it holds, and its first lease() in a relaunched task returns
// the leases its task's earlier attempts held (docs/replay.md, "Lease
// journals"). Every call retries on
// peer_restarted, peer_lost and courier timeouts until its deadline (the
// handles follow a restarted shard; samples and leases move on to the next
// shard meanwhile); an insert is re-sent to its shard with its seq, so
// a shard that already stored it answers with the same keys (at least
// once across a shard's restart). Refusals (status invalid, too_large)
// throw ReplayError with the server's message; a deadline passing throws
// ReplayError with Status::not_ready. Thread-safe; a Writer or Sampler is
// for one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "slipway/channels/endpoint.hpp"
#include "slipway/replay/wire.hpp"

namespace slipway::replay {

class ReplayError : public std::runtime_error {
 public:
  ReplayError(Status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  Status status() const noexcept { return status_; }

 private:
  Status status_;
};

using Sample = wire::SampleItem;
using Lease = wire::LeaseItem;
using Milliseconds = std::chrono::milliseconds;

struct ClientOptions {
  Milliseconds resolve_timeout{30000};  // to learn the node's shards
  Milliseconds max_wait{20000};         // wait_ms of one request at most (one shard)
  Milliseconds spread_wait{200};        // wait_ms per try when several shards are asked in turn
  Milliseconds call_margin{5000};       // courier timeout = wait_ms + this
  Milliseconds default_timeout{60000};  // of calls that give none
};

class Writer;
class Sampler;
class LeaseJournal;

class Client {
 public:
  // Resolves every shard of `node` through `endpoint` (which must outlive
  // the client).
  Client(channels::Endpoint& endpoint, std::string node, ClientOptions options = {});
  ~Client();

  std::size_t shards() const noexcept { return shards_.size(); }
  const Caller& caller() const noexcept { return caller_; }

  // One blob into several tables (table -> priority); its key.
  Key insert(channels::ByteView data, const std::map<std::string, double>& priorities,
             std::optional<Milliseconds> timeout = {});
  std::vector<Sample> sample(const std::string& table, std::uint32_t n, std::optional<Milliseconds> timeout = {});
  // One-way sends, grouped per shard.
  void update_priorities(const std::string& table, const std::vector<std::pair<Key, double>>& updates);
  void remove(const std::string& table, const std::vector<Key>& keys);
  void reset(const std::string& table);
  std::vector<InfoReply> info();
  std::vector<std::string> checkpoint();

  // Work tables. ack and nack count only the leases whose token they bring.
  std::vector<Lease> lease(const std::string& table, std::uint32_t n, std::optional<Milliseconds> timeout = {});
  std::uint32_t ack(const std::string& table, const std::vector<LeaseRef>& leases);
  std::uint32_t nack(const std::string& table, const std::vector<LeaseRef>& leases);
  std::uint32_t ack(const std::string& table, const std::vector<Lease>& leases);
  std::uint32_t nack(const std::string& table, const std::vector<Lease>& leases);

  // batch > 1: appends are sent `batch` items per insert call.
  Writer writer(const std::string& table, std::size_t max_in_flight = 8, std::size_t batch = 1);
  Sampler sampler(const std::string& table, std::uint32_t batch, std::size_t prefetch = 4);

  // The building blocks the Writer and Sampler share.
  struct Call {
    std::size_t shard;
    channels::Bytes body;
    std::future<channels::Bytes> reply;
  };
  std::future<channels::Bytes> send(std::size_t shard, const std::string& method, channels::Bytes body,
                                    Milliseconds wait) const;
  // Calls shard until a reply comes (retrying transport failures) or the
  // deadline passes (nullopt).
  std::optional<channels::Bytes> call(std::size_t shard, const std::string& method, const channels::Bytes& body,
                                      Milliseconds wait, std::chrono::steady_clock::time_point deadline) const;
  // One call; nullopt after a transport failure (throws past the deadline).
  std::optional<channels::Bytes> try_once(std::size_t shard, const std::string& method, const channels::Bytes& body,
                                          Milliseconds wait, std::chrono::steady_clock::time_point deadline) const;
  std::uint64_t next_seq();
  std::size_t next_shard();
  const ClientOptions& options() const noexcept { return options_; }

 private:
  std::vector<std::vector<Key>> by_shard(const std::vector<Key>& keys) const;
  std::uint32_t leases_call(const std::string& method, const std::string& table, const std::vector<LeaseRef>& leases);
  // At the first lease(): opens the journal, returns earlier attempts' leases.
  void return_predecessors_leases();

  channels::Endpoint& endpoint_;
  std::string node_;
  ClientOptions options_;
  Caller caller_;
  std::vector<channels::Handle> shards_;
  std::mutex mutex_;
  std::uint64_t seq_ = 0;
  std::size_t round_robin_ = 0;
  std::once_flag predecessors_;
  std::unique_ptr<LeaseJournal> journal_;  // inside slipway, from the first lease()
};

// Inserts into one table with up to max_in_flight calls in flight, `batch`
// items per call; append() blocks while the window is full (the server
// parks inserts its rate limiter refuses). Un-acknowledged inserts are
// re-sent until acknowledged.
class Writer {
 public:
  Writer(Client& client, std::string table, std::size_t max_in_flight, std::size_t batch = 1);
  ~Writer();  // flush(), errors swallowed: call flush() to see them
  Writer(Writer&&) noexcept = default;
  Writer& operator=(Writer&&) = delete;

  void append(channels::ByteView data, double priority = 1.0);
  // Waits until every append is acknowledged; the keys in append order.
  std::vector<Key> flush(std::optional<Milliseconds> timeout = {});

 private:
  struct InFlight {
    std::size_t shard;
    channels::Bytes body;
    std::future<channels::Bytes> reply;
  };
  void settle_oldest(std::chrono::steady_clock::time_point deadline);
  void send_pending(std::chrono::steady_clock::time_point deadline);

  Client* client_;
  std::string table_;
  std::size_t max_in_flight_;
  std::size_t batch_;
  wire::InsertEncoder pending_;  // the batch being appended
  std::deque<InFlight> in_flight_;
  std::vector<Key> keys_;
};

// Keeps `prefetch` samples of `batch` items in flight over the shards;
// next() returns one batch (waiting up to the timeout).
//
// On a queue or a stack, where a sample takes its items out, nothing is
// prefetched: next() is one Client::sample() of `batch` items (all or none,
// each request awaited), so no item is taken that next() does not return.
// The table's kind is asked once, of the first shard, at the first next().
class Sampler {
 public:
  Sampler(Client& client, std::string table, std::uint32_t batch, std::size_t prefetch);
  std::vector<Sample> next(std::optional<Milliseconds> timeout = {});

 private:
  void refill();
  bool takes_items_out(std::chrono::steady_clock::time_point deadline);
  Client* client_;
  std::string table_;
  std::uint32_t batch_;
  std::size_t prefetch_;
  std::optional<bool> takes_out_;  // known after the first next()
  std::deque<Client::Call> in_flight_;
};

}  // namespace slipway::replay
