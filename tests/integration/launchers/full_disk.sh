#!/usr/bin/env bash
# A run directory on a full disk (a 1 MiB tmpfs, mounted in a private mount
# namespace so nothing leaks): the task's log is cut, and slipway says so on
# the terminal, naming the task and its log; the program's true outcome (0)
# is kept even though the exit file cannot be written, and no half-written
# file (exit.tmp) is left behind.
source "$(dirname "$0")/lib.sh"
program=$(topology disk_filler)
mkdir "$WORK/small"
status=0
unshare -m --propagation private bash -c '
  set -e
  mount -t tmpfs -o size=1m slipway-it "$1/small"
  SLIPWAY_RUN_ROOT="$1/small/runs" timeout 120 "$2" run "$3" >"$1/out" 2>"$1/err" || echo $? >"$1/status"
  ls -A "$1/small/runs/latest/" >"$1/listing"
  tail -c 200 "$1/small/runs/latest/logs/filler.0.log" >"$1/log_tail" || true
' _ "$WORK" "$SLIPWAY" "$program" || fail "could not run slipway in a private mount namespace with a small tmpfs"
[ -e "$WORK/status" ] && status=$(cat "$WORK/status")
cat "$WORK/err"
echo "--- run directory: $(tr '\n' ' ' <"$WORK/listing")"
expect_status 0
expect_line "$WORK/out" '^filler\.0: filler done$'
expect_line "$WORK/err" "^filler\.0: slipway: cannot write to its log .*/logs/filler\.0\.log: No space left on device; .*"
expect_line "$WORK/err" "^slipway: the program.s exit status \(0\) is not recorded: cannot write .*/exit.: No space left on device"
expect_line "$WORK/err" "program 'filler' finished: all tasks finished"
expect_no_line "$WORK/listing" '\.tmp$'
echo PASS
