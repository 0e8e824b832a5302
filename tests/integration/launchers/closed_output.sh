#!/usr/bin/env bash
# A reader of slipway run's output that goes away (`| head -n 1`) does not
# stop the program: every task finishes, slipway run exits 0, and each
# task's log still has all its lines. Covers tasks run by the launcher and
# a colocated pair under slipway-exec.
source "$(dirname "$0")/lib.sh"
program=$(topology chatty)
set +e
timeout 120 "$SLIPWAY" run "$program" 2>"$WORK/err" | head -n 1 >"$WORK/first"
codes=("${PIPESTATUS[@]}")
set -e
cat "$WORK/err"
[ "${codes[0]}" -eq 0 ] || fail "slipway run exited ${codes[0]} after its reader went away"
[ -s "$WORK/first" ] || fail "no first line was read"
logs="$SLIPWAY_RUN_ROOT/latest/logs"
for task in talker.0 talker.1 grouped.0; do
  n=$(grep -c "^line " "$logs/$task.log")
  [ "$n" -eq 3000 ] || fail "$task.log has $n lines, expected 3000"
done
expect_line "$WORK/err" "program 'chatty' finished"
echo PASS
