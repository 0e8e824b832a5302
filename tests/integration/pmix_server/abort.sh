#!/usr/bin/env bash
# PMIx_Abort (what MPI_Abort calls) is reported naming the task; the
# aborting process exits with its status, so its task fails and the program
# fails instead of hanging; with MPI_Abort (mpi4py) the other ranks abort too.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out" run "$(pmix_topology abort)"
[ "$status" -ne 0 ] || fail "the program succeeded although rank 0 aborted"
[ "$status" -ne 124 ] || fail "slipway run hung (killed by the timeout)"
expect_line "$WORK/out" "ranks\.0: slipway-exec: pmix: ranks\.0 \(MPI rank 0\) aborted the MPI world with status 7: probe asked to abort"
expect_line "$WORK/out" "ranks\.0 exited with status 7"

if /usr/bin/python3 -c "import mpi4py" 2>/dev/null; then
  run_slipway "$WORK/out2" run "$(pmix_topology abort_mpi4py)"
  [ "$status" -ne 0 ] || fail "the program succeeded although rank 0 called MPI_Abort"
  [ "$status" -ne 124 ] || fail "slipway run hung (killed by the timeout)"
  expect_line "$WORK/out2" "aborted the MPI world with status 7"
  expect_line "$WORK/out2" "py\.0 exited with status 7"
fi
wait_until 10 no_survivors
echo PASS
