#!/usr/bin/env bash
# Two mpi nodes form one MPI world (MPMD): app numbers 0 and 1, 5 ranks.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out" run "$(pmix_topology mpmd)"
expect_status 0
expect_count "$WORK/out" "^left\.[01]: allreduce: rank [01] of 5 app 0 on .*: sum 15 ok$" 2
expect_count "$WORK/out" "^right\.[0-2]: allreduce: rank [234] of 5 app 1 on .*: sum 15 ok$" 3
echo PASS
