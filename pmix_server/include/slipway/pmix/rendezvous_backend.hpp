// RendezvousBackend: the Backend contract (backend.hpp) over one member's
// rendezvous client (rendezvous/client.hpp): the PMIx host's fences, keys,
// waits and member events become the rendezvous' own fences, scoped keys,
// pushed waits and member events.
//
// Contract: `client` must be a joined member and outlive every use of the
// backend (the task agent keeps its Wiring until after after_exit, when the
// host drops the backend). Asynchronous client calls complete on the
// client's threads; the client's blocking calls (create, erase,
// subscribe) run on the backend's own worker thread, so no operation blocks
// its caller. The destructor never touches the client.
#pragma once

#include <memory>

#include "slipway/pmix/backend.hpp"
#include "slipway/rendezvous/client.hpp"

namespace slipway::pmix {

std::shared_ptr<Backend> rendezvous_backend(rendezvous::Client& client);

// rendezvous::Status as a BackendStatus.
BackendStatus backend_status(rendezvous::Status status);

}  // namespace slipway::pmix
