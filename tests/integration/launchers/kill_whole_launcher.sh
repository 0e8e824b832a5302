#!/usr/bin/env bash
# Issue 27 item 10: SIGKILL of every slipway process of a run at once (the
# guard, the keeper, the launcher and the slipway-exec agents, as `pkill -9
# -f slipway` or an OOM kill of the whole group does) leaves no task and no
# listening port behind: the tasks' commands die by their parent-death
# signal, and what they started in their process group (children that
# ignore SIGTERM and SIGHUP and hold ports of their own) is killed by the
# kernel when its launcher or agent is gone (the lifeline pipe,
# base/process.hpp). Both kinds of task: run by the launcher itself, and
# colocated under slipway-exec.
source "$(dirname "$0")/lib.sh"
program=$(topology whole_kill)
SHOW_ON_FAILURE="$WORK/out"

listening() { [ "$(grep -c ' listens on ' "$WORK/out")" -ge 5 ]; }
port_open() { [ -n "$(ss -ltnH "sport = :$1")" ]; }
nothing_left() {
  local port
  no_survivors || return 1
  for port in $ports; do ! port_open "$port" || return 1; done
}

"$SLIPWAY" run "$program" >"$WORK/out" 2>&1 &
guard=$!
BACKGROUND_PIDS+=("$guard")
wait_until 60 listening
ports=$(sed -n 's/.* listens on \([0-9]*\)$/\1/p' "$WORK/out")
for port in $ports; do port_open "$port" || fail "port $port is not listening"; done
# Every slipway process of this run, found by pid under the guard it started.
ours="$guard $(descendants "$guard" run-keeper) $(descendants "$guard" slipway) $(descendants "$guard" slipway-exec)"
[ "$(echo "$ours" | wc -w)" -eq 4 ] || fail "expected guard, keeper, launcher and one agent: $ours"
pgrep -a -f "$MARKER"
# shellcheck disable=SC2086
kill -9 $ours
deadline=$((SECONDS + 10))
until nothing_left || [ "$SECONDS" -ge "$deadline" ]; do sleep 0.1; done
if ! nothing_left; then
  pgrep -a -f "$MARKER" || true
  for port in $ports; do ss -ltnpH "sport = :$port"; done
  fail "processes or listening ports of the run survived SIGKILL of all its slipway processes"
fi
echo PASS
