#!/usr/bin/env bash
# Two nodes holding handles to each other talk over the resolved ports.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out" run "$(topology handle_cycle)"
expect_status 0
expect_line "$WORK/out" "^ping.0: ping heard from pong$"
expect_line "$WORK/out" "^pong.0: pong heard from ping$"
echo PASS
