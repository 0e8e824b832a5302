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

#include <string>

namespace slipway::channels::detail {

struct TransportPlan {
  std::string ucx_tls;
  bool tcp = false;            // the courier's TCP transport
  bool ucx = false;            // UCX has a transport to reach other processes
  bool shared_memory = false;  // among them shared memory
};

TransportPlan plan_transports(const std::string& tls);

}  // namespace slipway::channels::detail
