#!/usr/bin/env bash
# slipway run under a hard limit of 300 open descriptors: 200 tasks that
# run at once would need 600 (two output pipes and a log each). slipway
# starts as many as the limit allows, queues the rest, says so in one
# line, and every task runs and succeeds.
source "$(dirname "$0")/lib.sh"
program=$(topology many)
status=0
(ulimit -n 300 && exec timeout 120 "$SLIPWAY" run "$program") >"$WORK/out" 2>&1 || status=$?
grep -v '^w\.' "$WORK/out" || true
expect_status 0
expect_no_line "$WORK/out" "Too many open files"
[ "$(grep -c '^w\.[0-9]*: w [0-9]*$' "$WORK/out")" -eq 200 ] || fail "expected 200 tasks to print"
[ "$(grep -c 'tasks at a time' "$WORK/out")" -eq 1 ] || fail "expected one line about the descriptor budget"
expect_line "$WORK/out" '^slipway: starting at most [0-9]+ tasks at a time: each running task holds [0-9]+ descriptors and the limit on open files is 300 \(ulimit -n\); the others wait their turn$'
echo PASS
