// RendezvousBackend: the Backend contract (backend.hpp) over one member's
// rendezvous client (rendezvous/client.hpp): the PMIx host's fences, keys,
// waits and member events become the rendezvous' own fences, scoped keys,
// pushed waits and member events.
//
// Contract: `client` must be a joined member and outlive every use of the
// backend (the task agent keeps its Wiring until after after_exit, when the
// host drops the backend). Asynchronous client calls complete on the
// client's threads; the client's blocking calls (create, erase) run on the
// backend's own worker thread, so they do not block their caller;
// watch_members subscribes before it returns (one round trip), so no end
// after it is missed. The destructor never touches the client.
#pragma once

#include <memory>

#include "slipway/pmix/backend.hpp"
#include "slipway/rendezvous/client.hpp"

namespace slipway::pmix {

std::shared_ptr<Backend> rendezvous_backend(rendezvous::Client& client);

// rendezvous::Status as a BackendStatus.
BackendStatus backend_status(rendezvous::Status status);

}  // namespace slipway::pmix
