#!/usr/bin/env bash
# SIGKILL of `slipway run` leaves no process of the program alive: not the
# agents, not the commands, not their children, not an escapee in its own
# session.
source "$(dirname "$0")/lib.sh"
program=$(topology sleepers)
"$SLIPWAY" run "$program" >"$WORK/out" 2>&1 &
launcher=$!
BACKGROUND_PIDS+=("$launcher")
# 2 plain + forker + its child + escaper + its setsid grandchild.
wait_until 60 bash -c "[ \$(pgrep -c -f '$MARKER') -ge 6 ]"
pgrep -a -f "$MARKER"
# The task agents are forks of the launcher: its command line, named
# slipway-agent.
agents_of_this_run() { pgrep -x slipway-agent | xargs -r ps -o args= -p | grep -c "$program"; }
no_agents_left() { [ "$(agents_of_this_run)" -eq 0 ]; }
[ "$(agents_of_this_run)" -ge 4 ] || fail "expected 4 task agents named slipway-agent"
kill -9 "$launcher"
wait_until 30 no_survivors
wait_until 30 no_agents_left
echo PASS
