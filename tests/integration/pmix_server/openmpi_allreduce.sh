#!/usr/bin/env bash
# An Open MPI C program (MPI_Init, Allreduce, Finalize) as 4 ranks under
# `slipway run`: no mpirun; each rank is a client of its own agent's server.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out" run "$(pmix_topology openmpi_allreduce)"
expect_status 0
for r in 0 1 2 3; do
  expect_line "$WORK/out" "^ranks\.$r: allreduce: rank $r of 4 app 0 on .*: sum 10 ok$"
done
echo PASS
