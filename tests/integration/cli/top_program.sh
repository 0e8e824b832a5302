#!/usr/bin/env bash
# Issue 29 item 2: `slipway top` on a program run by `slipway run`, through
# its rendezvous (the status document, key observe/status): --once prints
# every node with its tasks counted; under a pseudo-terminal (pty_screen.py)
# the screen shows every node, a node's tasks with their hosts, q exits 0
# and the terminal is restored; when the program is stopped meanwhile the
# screen says it ended and a key exits 0; afterwards --once says so and
# exits 0, and a program never run is an error.
source "$(dirname "$0")/lib.sh"
PTY=(/usr/bin/python3 "$(dirname "$0")/pty_screen.py" --stderr "$WORK/top.err")

cat >"$WORK/watched.toml" <<TOML
[program]
name = "watched"

[node.worker]
command = ["sh", "-c", "while :; do sleep 0.2; done", "$MARKER"]
replicas = 2

[node.helper]
command = ["sh", "-c", "while :; do sleep 0.2; done", "$MARKER"]
TOML

timeout 300 "$SLIPWAY" run "$WORK/watched.toml" >"$WORK/run.out" 2>&1 &
launcher=$!
BACKGROUND_PIDS+=("$launcher")
SHOW_ON_FAILURE="$WORK/run.out"
started watched "$launcher" "$WORK/run.out"

# --once, once every task runs.
all_running() {
  "$SLIPWAY" top --once watched >"$WORK/once.out" 2>&1 &&
    grep -Eq '^worker +exec +2 +2:2 +2 ' "$WORK/once.out" && grep -Eq '^helper +exec +1 +1:1 +1 ' "$WORK/once.out"
}
wait_until 60 all_running
expect_line "$WORK/once.out" '^watched  running  resume 0  up [0-9]+:[0-9]{2}:[0-9]{2}  members [0-9]+$'
expect_line "$WORK/once.out" "^run $(readlink -f "$SLIPWAY_RUN_ROOT/watched.latest")  metrics http://127\.0\.0\.1:[0-9]+/  sort node order$"
run_slipway "$WORK/node.out" top --once --node worker watched
expect_status 0
expect_line "$WORK/node.out" "^ +0 +$(hostname) +running +0 "
expect_line "$WORK/node.out" "^ +1 +$(hostname) +running +0 "
expect_line "$WORK/node.out" '^[0-9:]{8} start +worker\.1 +0 '
expect_no_line "$WORK/node.out" 'helper'

# Live: every node, a node's tasks, q.
"${PTY[@]}" expect='watched  running' expect='worker exec' expect='helper exec' expect='q quit' \
  key=f expect='REPLICA HOST' expect="      1 $(hostname)" key=q exit=0 restored \
  -- "$SLIPWAY" top watched

# The program stopped while watched: the screen says so, a key leaves (0).
"${PTY[@]}" expect='worker exec' sh="'$SLIPWAY' stop watched >/dev/null" expect='the program has ended' \
  key=x exit=0 restored \
  -- "$SLIPWAY" top watched
wait_for_exit "$launcher"

# Ended: --once says so and exits 0; the live view waits for a key.
run_slipway "$WORK/ended.out" top --once watched
expect_status 0
expect_line "$WORK/ended.out" 'is not running'
"${PTY[@]}" expect='is not running' expect='press any key' key=x exit=0 restored -- "$SLIPWAY" top watched

# A program never run: an error.
run_slipway "$WORK/none.out" top --once nosuchprogram
expect_status 1
expect_line "$WORK/none.out" '^slipway top: '
