#!/usr/bin/env bash
# framework = "horovod": replica 0's agent serves Horovod's gloo rendezvous
# store; three ranks publish, find each other and finalize through it.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out" run "$(topology horovod_store)"
expect_status 0
for r in 0 1 2; do
  expect_line "$WORK/out" "^hvd.$r: rank $r saw host-of-0,host-of-1,host-of-2$"
done
expect_line "$WORK/out" "^hvd.0: rank 0: scope global cleared after every rank finalized$"
echo PASS
