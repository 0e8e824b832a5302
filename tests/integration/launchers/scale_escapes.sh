#!/usr/bin/env bash
# Issue 27 item 11: what a task writes into the rendezvous (a scale/ key's
# value: who asks; a stop's reason) reaches the launcher's output escaped
# (rendezvous::printable): a newline cannot start a line of its own, so a
# task cannot forge "slipway: program ... failed", and no terminal escape
# gets through.
source "$(dirname "$0")/lib.sh"
SHOW_ON_FAILURE="$WORK/out"
run_slipway "$WORK/out" run "$(topology scale_forgery)"
cat "$WORK/out"
expect_status 0
expect_line "$WORK/out" "^slipway: actor grows from 1 to 2 replicas \(asked by evil\\\\nslipway: program 'forgery' failed: task actor\.0 exited with status 1\\\\x1b\[2J\.0\)"
expect_line "$WORK/out" "^slipway: stop requested: stop requested by evil\\\\nslipway: program"
expect_no_line "$WORK/out" "^slipway: program 'forgery' failed"
if grep -q $'\e' "$WORK/out"; then fail "a terminal escape reached the launcher's output"; fi
echo PASS
