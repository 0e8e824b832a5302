// Which transports a courier endpoint uses, from its TLS setting (as
// UCX_TLS: a list, "all", or an exclusion list "^a,b"; empty = UCX's
// default): UCX's shared memory (and RDMA) where the list allows them, and
// the courier's own TCP transport where it allows "tcp". UCX itself never
// gets tcp (its port aborts on a stranger's bytes: tcp_transport.hpp), nor
// sysv unless named (its segments are open to the user's group).
//
// Contract: plan_transports() is pure; ucx_tls is what UCX is given
// ("self" when UCX is left nothing to reach another process with).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace slipway::channels::detail {

struct TransportPlan {
  std::string ucx_tls;
  bool tcp = false;            // the courier's TCP transport
  bool ucx = false;            // UCX has a transport to reach other processes
  bool shared_memory = false;  // among them shared memory
};

TransportPlan plan_transports(const std::string& tls);

// The UCP_AM_SEND_FLAG_* a message of `payload_bytes` goes with on a UCX
// link, given the flags its sender asked for. Over shared memory (a peer on
// this host) a payload up to kSharedMemoryEagerMax goes eagerly: UCX 1.13
// drops cma's zero-copy lane from endpoints with peer error handling (its
// memory domain cannot invalidate), so UCX's rendezvous there moves the data
// through the same shared-memory queue in the same 8 KiB fragments and only
// adds a round trip (request to send, ready to receive), whose answer waits
// behind everything else in the receiver's queue: under the replay load a
// learner's 32 KiB sample reply waited for its ready-to-receive behind the
// actors' insert fragments. Above it rendezvous stays: the receiver checks
// the size before anything moves, and the data lands in its buffer without
// the extra copy of an eager message's reassembly.
inline constexpr std::size_t kSharedMemoryEagerMax = 48 * 1024;
std::uint32_t ucx_send_flags(bool shared_memory, std::size_t payload_bytes, std::uint32_t asked);

}  // namespace slipway::channels::detail
