/* The C ABI of the replay client (docs/replay.md, "Clients"), in
 * libslipway-courier.so beside courier.h, for programs in C and other
 * languages that call C. It wraps the C++ client (client.hpp) one to one:
 * every shard of a replay node resolved through a courier endpoint, inserts
 * spread over the shards, samples that wait until the call's deadline,
 * priority updates and deletes routed by the key's shard, work-table leases.
 *
 * Contract: as courier.h's. No C++ exception leaves a function; a function
 * that can fail returns a slipway_status and fills `error` when it is not
 * NULL. The replay node's own refusals map to: a deadline passing with
 * nothing to give (not_ready) SLIPWAY_E_TIMEOUT, an invalid request (an
 * unknown table, a bad priority) SLIPWAY_E_INVALID_ARGUMENT, an item over
 * the node's limit SLIPWAY_E_MESSAGE_TOO_LARGE, each with the node's
 * message. Data is copied before a function returns. A client is
 * thread-safe and must be destroyed before its endpoint. timeout_ms < 0:
 * the client's default (60 s). */
#ifndef SLIPWAY_REPLAY_REPLAY_H
#define SLIPWAY_REPLAY_REPLAY_H
#include <stddef.h>
#include <stdint.h>

#include "slipway/channels/courier.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct slipway_replay_client slipway_replay_client;
/* Items of one sample or lease call; freed by slipway_replay_items_free. */
typedef struct slipway_replay_items slipway_replay_items;

typedef struct slipway_replay_item {
  uint64_t key;
  const void* data; /* valid until the items are freed */
  size_t size;
  double priority;         /* sample: the item's priority; lease: 0 */
  double probability;      /* sample: the probability it was drawn with; lease: 0 */
  uint32_t times_sampled;  /* sample: times sampled; lease: times leased */
} slipway_replay_item;

/* Resolves every shard of the replay node `node` through `endpoint` (made
 * with a directory: inside a slipway program, SLIPWAY_DIRECTORY_AUTO). */
slipway_replay_client* slipway_replay_client_create(slipway_endpoint* endpoint, const char* node,
                                                    slipway_error* error);
void slipway_replay_client_destroy(slipway_replay_client* client);
/* How many shards the node has. */
size_t slipway_replay_shards(const slipway_replay_client* client);

/* One item into `count` tables (tables[i] with priorities[i]); its key. */
int slipway_replay_insert(slipway_replay_client* client, const void* data, size_t size,
                          const char* const* tables, const double* priorities, size_t count,
                          int64_t timeout_ms, uint64_t* key, slipway_error* error);
/* n items of `table` (a queue or stack takes them out); waits for them
 * until the deadline. */
int slipway_replay_sample(slipway_replay_client* client, const char* table, uint32_t n,
                          int64_t timeout_ms, slipway_replay_items** items, slipway_error* error);
/* One-way, grouped per shard. */
int slipway_replay_update_priorities(slipway_replay_client* client, const char* table,
                                     const uint64_t* keys, const double* priorities, size_t count,
                                     slipway_error* error);
int slipway_replay_remove(slipway_replay_client* client, const char* table, const uint64_t* keys,
                          size_t count, slipway_error* error);
int slipway_replay_reset(slipway_replay_client* client, const char* table, slipway_error* error);

/* Work tables: up to n leases; ack (done) or nack (give back) them by their
 * index in `items`; *counted: how many the node counted. */
int slipway_replay_lease(slipway_replay_client* client, const char* table, uint32_t n,
                         int64_t timeout_ms, slipway_replay_items** items, slipway_error* error);
int slipway_replay_ack(slipway_replay_client* client, const char* table,
                       const slipway_replay_items* items, uint32_t* counted, slipway_error* error);
int slipway_replay_nack(slipway_replay_client* client, const char* table,
                        const slipway_replay_items* items, uint32_t* counted, slipway_error* error);

size_t slipway_replay_items_count(const slipway_replay_items* items);
/* Item i (< count) into *item; SLIPWAY_E_INVALID_ARGUMENT past the end. */
int slipway_replay_items_get(const slipway_replay_items* items, size_t i, slipway_replay_item* item);
void slipway_replay_items_free(slipway_replay_items* items);

#ifdef __cplusplus
}
#endif
#endif
