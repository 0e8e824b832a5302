// The job-level, application, node and process information one PMIx server
// registers for the MPI world (PMIx_server_register_nspace): what an MPI
// library reads at init (sizes, ranks, local peers and local ranks, node
// map, app numbers, hostnames).
#pragma once

#include "info_array.hpp"
#include "slipway/pmix/mpi_world.hpp"

namespace slipway::pmix::detail {

// `local` is the set of ranks this server hosts (its local peers).
InfoArray namespace_info(const MpiWorld& world, const LocalView& local);

}  // namespace slipway::pmix::detail
