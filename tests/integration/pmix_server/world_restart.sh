#!/usr/bin/env bash
# An MPI world restarts whole: rank 1 of three mpi4py ranks dies in epoch 0
# while the others wait in a barrier; slipway stops them and starts the
# world again as epoch 1, a PMIx namespace of its own (nothing of epoch 0's
# modex or collectives is read), where every rank completes.
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c "import mpi4py" 2>/dev/null || { echo "SKIP: python3-mpi4py is not installed"; exit 77; }
run_slipway "$WORK/out" run "$(pmix_topology world_restart)"
expect_status 0
expect_count "$WORK/out" "^py\.[0-2]: rank [0-2] epoch 0 sum 6$" 3
expect_count "$WORK/out" "^py\.[0-2]: rank [0-2] epoch 1 sum 6$" 3
expect_count "$WORK/out" "^py\.[0-2]: rank [0-2] epoch 1 done$" 3
expect_no_line "$WORK/out" "epoch 0 done"
expect_line "$WORK/out" "restarting py\.0 \(attempt 1, epoch 1 of its world\)"
echo PASS
