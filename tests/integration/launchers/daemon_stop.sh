#!/usr/bin/env bash
# Daemon nodes are stopped once every non-daemon node has finished, and the
# program then succeeds.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out" run "$(topology daemon_stop)"
expect_status 0
expect_line "$WORK/out" "^worker.1: worker using 127\.0\.0\.1:[0-9]+$"
expect_line "$WORK/out" "^replay.0: replay stopping$"
wait_until 10 no_survivors
echo PASS
