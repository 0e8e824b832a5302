#!/usr/bin/env bash
# `slipway status` lists a running program's tasks from another terminal;
# `slipway stop` ends it (exit 0), from outside and from inside a task.
source "$(dirname "$0")/lib.sh"
"$SLIPWAY" run "$(topology stop_status)" >"$WORK/out" 2>&1 &
launcher=$!
BACKGROUND_PIDS+=("$launcher")
wait_until 60 bash -c "[ \$(pgrep -c -f '$MARKER') -ge 5 ]"
"$SLIPWAY" status >"$WORK/status" 2>&1 || { cat "$WORK/status"; fail "slipway status failed"; }
cat "$WORK/status"
expect_line "$WORK/status" "^server +0 +[^ ]+ +0 +- +running"
expect_line "$WORK/status" "^client +1 +[^ ]+ +0 +- +running"
expect_line "$WORK/status" "^world +1 +[^ ]+ +0 +0 +running"
"$SLIPWAY" status stopper >/dev/null || fail "status by program name failed"
"$SLIPWAY" stop stopper
set +e
timeout 30 tail --pid="$launcher" -f /dev/null
wait "$launcher"
status=$?
set -e
cat "$WORK/out"
expect_status 0
expect_line "$WORK/out" "stop requested"
wait_until 10 no_survivors

run_slipway "$WORK/self" run "$(topology self_stop)"
expect_status 0
expect_line "$WORK/self" "stop requested: .*boss is done"
wait_until 10 no_survivors
echo PASS
