/* The C ABI of courier RPC, for languages that call C (Python's ctypes:
 * python/slipway/courier.py). It wraps the C++ API of endpoint.hpp one to
 * one; docs/channels.md documents both.
 *
 * Contract: no C++ exception leaves any of these functions. Functions that
 * can fail return a slipway_status (or NULL) and, when `error` is not NULL,
 * fill it with the code and a message (truncated to fit). Requests are
 * copied before a function returns. Replies come in a slipway_buffer that the
 * caller frees with slipway_buffer_free. Every object is freed by its
 * *_destroy function, from any thread but a handler of the same endpoint.
 *
 * Handlers run on the thread progressing the endpoint's worker: its
 * progress thread, or a thread of the endpoint's own blocked in slipway_call
 * (or on its handler threads, see handler_threads), and must answer every
 * call exactly once, then or later and from any thread, with
 * slipway_responder_reply or slipway_responder_fail; each frees the
 * responder. */
#ifndef SLIPWAY_CHANNELS_COURIER_H
#define SLIPWAY_CHANNELS_COURIER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SLIPWAY_COURIER_ABI_VERSION 2 /* 2: the progress fields of slipway_endpoint_options */

typedef enum slipway_status {
  SLIPWAY_OK = 0,
  SLIPWAY_E_TIMEOUT = 1,
  SLIPWAY_E_REMOTE = 2,
  SLIPWAY_E_NO_SUCH_METHOD = 3,
  SLIPWAY_E_MESSAGE_TOO_LARGE = 4,
  SLIPWAY_E_OVERLOADED = 5,
  SLIPWAY_E_PEER_RESTARTED = 6,
  SLIPWAY_E_PEER_LOST = 7,
  SLIPWAY_E_NOT_RESOLVED = 8,
  SLIPWAY_E_CLOSED = 9,
  SLIPWAY_E_WOULD_DEADLOCK = 10,
  SLIPWAY_E_INVALID_ARGUMENT = 11,
  SLIPWAY_E_TRANSPORT = 12,
  SLIPWAY_E_PROTOCOL = 13,
  SLIPWAY_E_PENDING = 100, /* slipway_future_wait: not complete yet */
  SLIPWAY_E_INTERNAL = 101 /* out of memory or an unexpected failure */
} slipway_status;

typedef struct slipway_error {
  int code;                   /* a slipway_status */
  char message[2048];         /* what happened, naming node.replica and method */
  char remote_message[1024];  /* the callee's own message (SLIPWAY_E_REMOTE ...) */
} slipway_error;

typedef struct slipway_buffer {
  void* data;
  size_t size;
  void* owner; /* freed by slipway_buffer_free */
} slipway_buffer;

enum slipway_directory_kind {
  SLIPWAY_DIRECTORY_NONE = 0,       /* only slipway_endpoint_connect */
  SLIPWAY_DIRECTORY_RENDEZVOUS = 1, /* the program's (SLIPWAY_RDZV, SLIPWAY_TOKEN) */
  SLIPWAY_DIRECTORY_AUTO = 2        /* the rendezvous when SLIPWAY_RDZV is set */
};

typedef struct slipway_endpoint_options {
  const char* name;            /* NULL: NODE.REPLICA of this task */
  const char* tls;             /* NULL: UCX_TLS of the environment */
  const char* net_devices;     /* NULL: UCX_NET_DEVICES */
  const char* rndv_thresh;     /* NULL: UCX_RNDV_THRESH */
  uint64_t max_message_bytes;  /* 0: the default (256 MiB) */
  uint32_t handler_threads;    /* 0: handlers on the thread progressing the worker */
  int64_t default_timeout_ms;  /* <= 0: the default (30 s) */
  int directory;               /* a slipway_directory_kind */
  /* How threads wait for UCX (docs/channels.md, "Progress and threads"). */
  int caller_progress;         /* 1 (the default): a blocked caller drives the worker; 0: it never does */
  int64_t poll_limit_us;       /* < 0: the default (100); the longest learnt polling window; 0: never poll */
  int64_t busy_poll_us;        /* > 0: a fixed polling window; 0 (the default): learnt */
} slipway_endpoint_options;

typedef struct slipway_endpoint slipway_endpoint;
typedef struct slipway_handle slipway_handle;
typedef struct slipway_future slipway_future;
typedef struct slipway_responder slipway_responder;

typedef void (*slipway_handler)(void* user, const void* request, size_t size,
                                slipway_responder* responder);

const char* slipway_status_name(int code);
void slipway_endpoint_options_init(slipway_endpoint_options* options);

slipway_endpoint* slipway_endpoint_create(const slipway_endpoint_options* options,
                                          slipway_error* error);
void slipway_endpoint_destroy(slipway_endpoint* endpoint);
/* The endpoint's UCX worker address; valid while the endpoint lives. */
void slipway_endpoint_address(const slipway_endpoint* endpoint, const void** data, size_t* size);
const char* slipway_endpoint_name(const slipway_endpoint* endpoint);
int slipway_endpoint_register(slipway_endpoint* endpoint, const char* method,
                              slipway_handler handler, void* user, slipway_error* error);
/* node NULL: SLIPWAY_NODE / SLIPWAY_REPLICA (and SLIPWAY_REPLICAS) of this task. */
int slipway_endpoint_publish(slipway_endpoint* endpoint, const char* node, uint32_t replica,
                             slipway_error* error);
/* The replicas resolve_all resolves (an elastic node's live set, else 0..N-1):
   up to `capacity` of them into `replicas`, ascending, and how many there
   are into *count (call again with a larger array when *count > capacity). */
int slipway_endpoint_live_replicas(slipway_endpoint* endpoint, const char* node, int64_t timeout_ms,
                                   uint32_t* replicas, uint32_t capacity, uint32_t* count,
                                   slipway_error* error);
int slipway_endpoint_replicas(slipway_endpoint* endpoint, const char* node, int64_t timeout_ms,
                              uint32_t* count, slipway_error* error);
slipway_handle* slipway_endpoint_resolve(slipway_endpoint* endpoint, const char* node,
                                         uint32_t replica, slipway_error* error);
slipway_handle* slipway_endpoint_connect(slipway_endpoint* endpoint, const void* address,
                                         size_t size, const char* label, slipway_error* error);

int slipway_responder_reply(slipway_responder* responder, const void* data, size_t size);
int slipway_responder_fail(slipway_responder* responder, const char* message);

void slipway_handle_destroy(slipway_handle* handle);
const char* slipway_handle_name(const slipway_handle* handle);
/* timeout_ms < 0: the endpoint's default. */
int slipway_call(const slipway_handle* handle, const char* method, const void* request,
                 size_t size, int64_t timeout_ms, slipway_buffer* reply, slipway_error* error);
slipway_future* slipway_call_async(const slipway_handle* handle, const char* method,
                                   const void* request, size_t size, int64_t timeout_ms,
                                   slipway_error* error);
slipway_future* slipway_send(const slipway_handle* handle, const char* method, const void* request,
                             size_t size, int64_t timeout_ms, slipway_error* error);
/* Waits up to timeout_ms (< 0: until complete). SLIPWAY_E_PENDING when not
 * complete yet; otherwise the call's outcome (reply may be NULL for send). */
int slipway_future_wait(slipway_future* future, int64_t timeout_ms, slipway_buffer* reply,
                        slipway_error* error);
void slipway_future_destroy(slipway_future* future);

void slipway_buffer_free(slipway_buffer* buffer);

#ifdef __cplusplus
}
#endif

#endif /* SLIPWAY_CHANNELS_COURIER_H */
