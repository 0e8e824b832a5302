#!/usr/bin/env bash
# SIGKILL of `slipway run` leaves no process of the program alive: not the
# agents, not the commands, not their children, not an escapee in its own
# session.
source "$(dirname "$0")/lib.sh"
"$SLIPWAY" run "$(topology sleepers)" >"$WORK/out" 2>&1 &
launcher=$!
BACKGROUND_PIDS+=("$launcher")
# 2 plain + forker + its child + escaper + its setsid grandchild.
wait_until 60 bash -c "[ \$(pgrep -c -f '$MARKER') -ge 6 ]"
pgrep -a -f "$MARKER"
kill -9 "$launcher"
wait_until 30 no_survivors
if pgrep -f slipway-exec | xargs -r ps -o args= -p | grep -q "$WORK"; then
  fail "a slipway-exec of this run survived"
fi
echo PASS
