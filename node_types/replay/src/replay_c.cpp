// The replay client's C ABI (replay.h) over the C++ client (client.hpp),
// built into libslipway-courier.so beside courier.h's: every entry point
// catches every exception and reports it as a status plus message.
#include "slipway/replay/replay.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "slipway/channels/c_abi.hpp"
#include "slipway/replay/client.hpp"

using slipway::channels::ChannelError;
using slipway::channels::Errc;
using slipway::channels::c_abi::guarded;
using namespace slipway::replay;

struct slipway_replay_client {
  std::unique_ptr<Client> client;
};
struct slipway_replay_items {
  std::vector<Sample> samples;
  std::vector<Lease> leases;  // one of the two is filled
};

namespace {

// Runs body like guarded(), with the replay node's refusals as statuses.
template <typename Body>
int replay_guarded(slipway_error* error, Body&& body) {
  return guarded(error, [&] {
    try {
      body();
    } catch (const ReplayError& e) {
      const Errc code = e.status() == Status::not_ready   ? Errc::timeout
                        : e.status() == Status::too_large ? Errc::message_too_large
                                                          : Errc::invalid_argument;
      throw ChannelError(code, e.what());
    }
  });
}

std::optional<Milliseconds> timeout_of(std::int64_t timeout_ms) {
  if (timeout_ms < 0) return std::nullopt;
  return Milliseconds(timeout_ms);
}

void require(bool condition, const char* what) {
  if (!condition) throw ChannelError(Errc::invalid_argument, what);
}

std::vector<Key> keys_of(const std::uint64_t* keys, std::size_t count) {
  require(count == 0 || keys, "keys is NULL with a count");
  return std::vector<Key>(keys, keys + count);
}

std::vector<LeaseRef> refs_of(const slipway_replay_items* items) {
  require(items, "items is NULL");
  std::vector<LeaseRef> refs;
  refs.reserve(items->leases.size());
  for (const Lease& lease : items->leases) refs.push_back(lease.ref());
  return refs;
}

}  // namespace

extern "C" {

slipway_replay_client* slipway_replay_client_create(slipway_endpoint* endpoint, const char* node,
                                                    slipway_error* error) {
  slipway_replay_client* out = nullptr;
  replay_guarded(error, [&] {
    require(endpoint && node && *node, "an endpoint and a node are required");
    auto client = std::make_unique<slipway_replay_client>();
    client->client = std::make_unique<Client>(*endpoint->endpoint, node);
    out = client.release();
  });
  return out;
}

void slipway_replay_client_destroy(slipway_replay_client* client) { delete client; }

size_t slipway_replay_shards(const slipway_replay_client* client) { return client ? client->client->shards() : 0; }

int slipway_replay_insert(slipway_replay_client* client, const void* data, size_t size,
                          const char* const* tables, const double* priorities, size_t count,
                          int64_t timeout_ms, uint64_t* key, slipway_error* error) {
  return replay_guarded(error, [&] {
    require(client, "client is NULL");
    require(size == 0 || data, "data is NULL with a size");
    require(count > 0 && tables && priorities, "at least one table and its priority are required");
    std::map<std::string, double> into;
    for (std::size_t i = 0; i < count; ++i) {
      require(tables[i] != nullptr, "a table name is NULL");
      into[tables[i]] = priorities[i];
    }
    const Key inserted = client->client->insert(
        slipway::channels::ByteView(static_cast<const std::byte*>(data), size), into, timeout_of(timeout_ms));
    if (key) *key = inserted;
  });
}

int slipway_replay_sample(slipway_replay_client* client, const char* table, uint32_t n, int64_t timeout_ms,
                          slipway_replay_items** items, slipway_error* error) {
  return replay_guarded(error, [&] {
    require(client && table && items, "client, table and items are required");
    auto out = std::make_unique<slipway_replay_items>();
    out->samples = client->client->sample(table, n, timeout_of(timeout_ms));
    *items = out.release();
  });
}

int slipway_replay_update_priorities(slipway_replay_client* client, const char* table, const uint64_t* keys,
                                     const double* priorities, size_t count, slipway_error* error) {
  return replay_guarded(error, [&] {
    require(client && table, "client and table are required");
    require(count == 0 || (keys && priorities), "keys or priorities is NULL with a count");
    std::vector<std::pair<Key, double>> updates;
    updates.reserve(count);
    for (std::size_t i = 0; i < count; ++i) updates.emplace_back(keys[i], priorities[i]);
    client->client->update_priorities(table, updates);
  });
}

int slipway_replay_remove(slipway_replay_client* client, const char* table, const uint64_t* keys, size_t count,
                          slipway_error* error) {
  return replay_guarded(error, [&] {
    require(client && table, "client and table are required");
    client->client->remove(table, keys_of(keys, count));
  });
}

int slipway_replay_reset(slipway_replay_client* client, const char* table, slipway_error* error) {
  return replay_guarded(error, [&] {
    require(client && table, "client and table are required");
    client->client->reset(table);
  });
}

int slipway_replay_lease(slipway_replay_client* client, const char* table, uint32_t n, int64_t timeout_ms,
                         slipway_replay_items** items, slipway_error* error) {
  return replay_guarded(error, [&] {
    require(client && table && items, "client, table and items are required");
    auto out = std::make_unique<slipway_replay_items>();
    out->leases = client->client->lease(table, n, timeout_of(timeout_ms));
    *items = out.release();
  });
}

int slipway_replay_ack(slipway_replay_client* client, const char* table, const slipway_replay_items* items,
                       uint32_t* counted, slipway_error* error) {
  return replay_guarded(error, [&] {
    require(client && table, "client and table are required");
    const std::uint32_t n = client->client->ack(table, refs_of(items));
    if (counted) *counted = n;
  });
}

int slipway_replay_nack(slipway_replay_client* client, const char* table, const slipway_replay_items* items,
                        uint32_t* counted, slipway_error* error) {
  return replay_guarded(error, [&] {
    require(client && table, "client and table are required");
    const std::uint32_t n = client->client->nack(table, refs_of(items));
    if (counted) *counted = n;
  });
}

size_t slipway_replay_items_count(const slipway_replay_items* items) {
  if (!items) return 0;
  return items->samples.empty() ? items->leases.size() : items->samples.size();
}

int slipway_replay_items_get(const slipway_replay_items* items, size_t i, slipway_replay_item* item) {
  if (!items || !item || i >= slipway_replay_items_count(items)) return SLIPWAY_E_INVALID_ARGUMENT;
  if (!items->samples.empty()) {
    const Sample& s = items->samples[i];
    *item = {s.key, s.data.data(), s.data.size(), s.priority, s.probability, s.times_sampled};
  } else {
    const Lease& l = items->leases[i];
    *item = {l.key, l.data.data(), l.data.size(), 0.0, 0.0, l.times_leased};
  }
  return SLIPWAY_OK;
}

void slipway_replay_items_free(slipway_replay_items* items) { delete items; }

}  // extern "C"
