// The task agent's Wiring over the rendezvous client: each task joins the
// program's rendezvous as a member (node, replica, attempt, host, pid),
// publishes its ports as task-scoped keys (withdrawn if it dies), waits for
// its peers' keys (pushed, no polling) and hears "program stopping".
#pragma once

#include <cstdint>

#include "slipway/exec/wiring.hpp"

namespace slipway::exec {

// Reads SLIPWAY_RDZV and SLIPWAY_TOKEN; throws std::runtime_error naming
// the missing variable. Each call of the factory connects one member.
WiringFactory rendezvous_wiring_from_environment(std::uint32_t attempt);

}  // namespace slipway::exec
