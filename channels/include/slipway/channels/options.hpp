// Settings of a courier endpoint: UCX transport settings passed through to
// its UCX context, and the bounds that hold what peers can make it allocate.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>

namespace slipway::channels {

struct EndpointOptions {
  // UCX settings applied on top of the UCX_* environment (which slipway's
  // launch layer sets from the node's [ucx] table); empty = the environment's.
  std::string tls;          // as UCX_TLS, e.g. "tcp" or "posix,cma"
  std::string net_devices;  // as UCX_NET_DEVICES, e.g. "lo" or "mlx5_0:1"
  std::string rndv_thresh;  // as UCX_RNDV_THRESH: payloads above go zero-copy
  std::map<std::string, std::string> ucx_config;  // any other, NAME without "UCX_"

  // The program's secret, which every caller proves before its first
  // request is read (docs/channels.md, "Who may call"); empty = the task's
  // SLIPWAY_TOKEN, or where that is unset a secret of this process alone
  // (its endpoints then admit only each other). Never logged.
  std::string secret;

  // How this endpoint names itself in messages and to the peers it calls;
  // empty = "NODE.REPLICA" from SLIPWAY_NODE/SLIPWAY_REPLICA, else "courier".
  std::string name;

  // The largest request or reply this endpoint sends or accepts. A bigger
  // one fails with Errc::message_too_large before anything is sent or
  // allocated.
  std::size_t max_message_bytes = std::size_t{256} << 20;
  // Large payloads being received at once (buffers allocated for UCX's
  // rendezvous protocol); past it, calls are refused with Errc::overloaded.
  std::size_t max_receive_bytes = std::size_t{1} << 30;
  // Requests received and not yet answered; past it, Errc::overloaded.
  std::size_t max_queued_requests = 65536;
  // The bytes of requests one Handle keeps in flight (sent, not answered)
  // to a callee it reaches over shared memory; later calls wait in order
  // until replies make room (one call always goes). The callee's
  // shared-memory queue serves its senders in arrival order: without a cap
  // a few busy callers fill it and everyone else's calls wait behind them.
  // 0 (the default until measured under the replay load: docs/channels.md):
  // no cap. TCP connections are not capped (the kernel's socket buffers
  // bound each connection on its own).
  std::size_t max_shared_memory_bytes_in_flight = 0;
  // Distinct caller endpoints connected at once; a new caller past it is
  // refused (its calls time out) and the refusal is logged.
  std::size_t max_callers = 4096;
  // Timeout of calls that give none.
  std::chrono::milliseconds default_timeout{30000};
  // 0: handlers run on the thread that progresses the endpoint's worker,
  // its progress thread or a caller driving it (fastest; a handler must not
  // block, and cannot make blocking calls through this endpoint).
  // N: handlers run on N threads of their own (they may block and call).
  unsigned handler_threads = 0;
  // How threads wait for UCX (docs/channels.md, "Progress and threads").
  // Idle, the progress thread always sleeps (ucp_worker_arm + epoll). After
  // activity it polls for a short window first: busy_poll > 0 fixes that
  // window (a core spent per endpoint while traffic flows); with busy_poll 0
  // (the default) the window is learnt from the gaps between messages (twice
  // their recent peak, at most poll_limit, none while polling does not pay).
  // poll_limit 0: never poll, every wait sleeps in epoll.
  std::chrono::microseconds busy_poll{0};
  std::chrono::microseconds poll_limit{100};
  // A thread blocked in Handle::call drives the worker itself while the
  // progress thread sleeps or only polls: it sends the request and polls
  // for the reply for busy_poll when set, else for a window learnt the same
  // way from the round trips to that callee, so a quick reply needs no
  // thread hand-offs. Then (or when another thread holds the worker) it
  // sleeps until the reply. false: calls are handed to the progress thread.
  bool caller_progress = true;
};

}  // namespace slipway::channels
