#!/usr/bin/env bash
# Two nodes holding handles to each other talk over the resolved ports:
# both run in the launcher's loop; one there and one under slipway-exec;
# both under slipway-exec (SLIPWAY_INLINE_TASKS=0).
source "$(dirname "$0")/lib.sh"
check_cycle() {
  expect_status 0
  expect_line "$1" "^ping.0: ping heard from pong$"
  expect_line "$1" "^pong.0: pong heard from ping$"
}
run_slipway "$WORK/out" run "$(topology handle_cycle)"
check_cycle "$WORK/out"
run_slipway "$WORK/mixed" run "$(topology handle_cycle_mixed)"
check_cycle "$WORK/mixed"
expect_line "$WORK/mixed" "^buddy.0: buddy here$"
SLIPWAY_INLINE_TASKS=0 run_slipway "$WORK/agents" run "$(topology handle_cycle)"
check_cycle "$WORK/agents"
echo PASS
